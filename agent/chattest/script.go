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
	split    func(text string) []string
}

type step struct {
	resp *chat.Response
	err  error
	fn   FuncModel
}

// A Request is one call a [Script] received: copies of the messages and of the options.
type Request struct {
	// Messages are the messages the call was given.
	Messages []chat.Message
	// Options are a copy of the call's options, empty when it had none.
	Options *chat.Options
	// Sent are the call's options themselves, not copied, or nil: to check which options value the caller sent,
	// or that it did not change them after the call (compare them with Options).
	Sent *chat.Options
}

// ToolNames returns the names of the tools the call offered, in order.
func (r Request) ToolNames() []string {
	var names []string
	if r.Options != nil {
		for _, t := range r.Options.Tools {
			names = append(names, t.Name)
		}
	}
	return names
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

// ReplyFunc appends a step that f answers, given the request that reaches it: for an answer that depends on what
// the model was sent. f's response is used as it is, so it should be a new value each call.
func (s *Script) ReplyFunc(f FuncModel) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, step{fn: f})
	return s
}

// SplitText sets how Stream splits each text of a response into deltas, for a test of what joins them; empty
// deltas are left out. The default splits after each space, as [FuncModel] does.
func (s *Script) SplitText(split func(text string) []string) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.split = split
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

func (s *Script) next(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Messages: slices.Clone(msgs), Options: opts.Clone(), Sent: opts})
	if n >= len(s.steps) {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w (request %d, %d scripted)", ErrScriptDone, n+1, len(s.steps))
	}
	st := s.steps[n]
	s.mu.Unlock()
	if st.fn != nil {
		return st.fn(ctx, msgs, opts) // outside the lock: f may take its time, and calls may run concurrently
	}
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
	return FuncModel(s.next).Respond(ctx, msgs, opts)
}

// Stream yields the next scripted response in pieces: each message's text as deltas (see [Script.SplitText]), its
// other parts whole, then the usage; the last update carries the finish reason.
func (s *Script) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := FuncModel(s.next).Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		s.mu.Lock()
		split := s.split
		s.mu.Unlock()
		if split == nil {
			split = byWords
		}
		streamResponse(ctx, resp, split, yield)
	}
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
