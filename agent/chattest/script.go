package chattest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// ErrScriptDone is returned when a [Script] is asked for more responses than it holds.
var ErrScriptDone = errors.New("chattest: the script has no more responses")

// Script is a [chat.Client] that answers with scripted responses in order and records every request it sees.
// It is safe for concurrent use.
type Script struct {
	mu       sync.Mutex
	steps    []step
	requests []Request
}

type step struct {
	resp *chat.Response
	err  error
}

// A Request is one call a [Script] received: copies of the messages and of the options.
type Request struct {
	// Messages are the messages the call was given.
	Messages []chat.Message
	// Options are a copy of the call's options, empty when it had none.
	Options *chat.Options
}

// NewScript returns a script answering with responses in order.
func NewScript(responses ...*chat.Response) *Script {
	s := &Script{}
	for _, r := range responses {
		s.Reply(r)
	}
	return s
}

// Reply appends a response to the script.
func (s *Script) Reply(resp *chat.Response) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, step{resp: resp})
	return s
}

// Fail appends a failure to the script: the call that reaches it returns err.
func (s *Script) Fail(err error) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, step{err: err})
	return s
}

// Requests returns the requests received so far.
func (s *Script) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Remaining reports how many scripted answers are left.
func (s *Script) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - len(s.requests)
}

func (s *Script) next(msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Messages: slices.Clone(msgs), Options: opts.Clone()})
	if n >= len(s.steps) {
		return nil, fmt.Errorf("%w (request %d, %d scripted)", ErrScriptDone, n+1, len(s.steps))
	}
	st := s.steps[n]
	if st.err != nil {
		return nil, st.err
	}
	// Each call gets its own copy, so that a caller changing it cannot change a later answer.
	resp := *st.resp
	resp.Messages = slices.Clone(resp.Messages)
	return &resp, nil
}

// Respond returns the next scripted response.
func (s *Script) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		return s.next(msgs, opts)
	}).Respond(ctx, msgs, opts)
}

// Stream yields the next scripted response in pieces.
func (s *Script) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		return s.next(msgs, opts)
	}).Stream(ctx, msgs, opts)
}

// Text returns a response with one assistant message saying text.
func Text(text string) *chat.Response {
	return &chat.Response{
		Messages:     []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}},
		FinishReason: chat.FinishStop,
	}
}

// Calls returns a response with one assistant message asking for the calls.
func Calls(calls ...chat.ToolCall) *chat.Response {
	parts := make([]chat.Part, len(calls))
	for i, c := range calls {
		parts[i] = c
	}
	return &chat.Response{
		Messages:     []chat.Message{{Role: chat.RoleAssistant, Parts: parts}},
		FinishReason: chat.FinishToolCalls,
	}
}

// Call returns a tool call with arguments given as JSON text.
func Call(id, name, arguments string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: []byte(arguments)}
}
