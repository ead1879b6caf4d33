package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// answerStage sits between the approval stage and the author names in the run of an agent that declares an
// answer type (see [Returns]). It asks each pass of the tool loop for the answer in the run's mode, reads the
// answer the pass ends with, checks it with the generated decoder and the agent's validators, and sends a
// refused one back to the model, as many times as the agent allows: each time another pass, whose model calls
// the tool loop counts in the run's usage, budget and max_iterations.
type answerStage struct {
	next   chat.Client
	ans    *answerSpec
	mode   AnswerMode
	strict bool        // native mode in OpenAI's strict profile: nulls restored before decoding
	ask    *runAsk     // read: the agent's name
	rounds *rounds     // read: whether the run may call the model again
	cp     *checkpoint // stores the messages the stage adds; nil without a conversation

	raw      json.RawMessage // the accepted answer, for the Result
	value    any
	attempts int           // answers read in the run
	out      chat.Response // the stage's response, when it has more than one pass's
	partial  partialObject
}

// UseAnswerMode sets how this run asks for the typed answer, over the agent's choice and Config.AnswerMode. It
// applies to whichever agent answers: the one the run starts with, or an agent the run is handed to (or routed to,
// as the conversation's last) that declares an answer type; an agent that answers with text ignores it.
func UseAnswerMode(m AnswerMode) RunOption {
	return func(r *runInput) {
		if !m.valid() {
			r.err = fmt.Errorf("agent: unknown answer mode %q", m)
		}
		r.answerMode = m
	}
}

// newAnswerStage is the answer stage of a run whose provider and tools are resolved.
func newAnswerStage(a *answerSpec, next chat.Client, ask *runAsk, r *rounds, cp *checkpoint) *answerStage {
	s := &answerStage{next: next, ans: a, ask: ask, rounds: r, cp: cp}
	m := ask.input.answerMode
	if m == AnswerAuto {
		m = ask.h.cfg.AnswerMode
	}
	s.mode = a.modeFor(m, ask.resolved.provider, len(ask.resolved.opts.Tools))
	s.strict = s.mode == AnswerNative && a.strict != nil && ask.resolved.provider == "openai"
	return s
}

func (s *answerStage) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return s.run(ctx, msgs, opts, nil)
}

func (s *answerStage) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return streamOf(func(emit emitFunc) (*chat.Response, error) { return s.run(ctx, msgs, opts, emit) })
}

// options returns a copy of opts that asks for the answer in the run's mode.
func (s *answerStage) options(opts *chat.Options) *chat.Options {
	o := opts.Clone()
	a := &s.ans.ans
	switch s.mode {
	case AnswerNative:
		o.ResponseFormat = &chat.ResponseFormat{Name: a.Name, Schema: a.Schema, Strict: s.strict}
	case AnswerTool:
		o.Tools = append(o.Tools, s.ans.tool)
	case AnswerPrompted:
		if o.Instructions != "" {
			o.Instructions += "\n\n"
		}
		o.Instructions += s.ans.prompt
	}
	return o
}

func (s *answerStage) run(ctx context.Context, msgs []chat.Message, opts *chat.Options, emit emitFunc) (*chat.Response, error) {
	o := s.options(opts)
	s.out = chat.Response{}
	out := &s.out
	fwd := emit
	if emit != nil && s.mode != AnswerTool {
		fwd = s.partials(emit)
	}
	req := msgs
	for {
		s.partial.reset()
		resp, err := callNext(ctx, s.next, req, o, fwd, false)
		if resp != nil {
			out.Messages = append(out.Messages, resp.Messages...)
			out.Usage = out.Usage.Add(resp.Usage)
			out.ID, out.Model, out.FinishReason = resp.ID, resp.Model, resp.FinishReason
		}
		if err != nil || resp == nil {
			return out, err
		}
		m, raw, ok := s.answerIn(resp.Messages)
		if !ok {
			if spent(resp.Messages) {
				return out, &AnswerError{Type: s.ans.ans.Name, Attempts: s.attempts, Err: errNoAnswer}
			}
			return out, nil // waiting for approvals, or handed off: no answer yet
		}
		s.attempts++
		data, value, refused, err := s.check(ctx, raw)
		if err != nil {
			return out, err
		}
		if refused == nil {
			s.raw, s.value = data, value
			return out, s.accept(out, m, data, emit)
		}
		last := s.attempts > s.ans.retries || s.rounds.left() == 0
		if last && len(m.ToolCalls()) == 0 {
			return out, &AnswerError{Type: s.ans.ans.Name, Raw: string(raw), Attempts: s.attempts, Err: refused}
		}
		// The refusal answers the answer tool's call even when the run ends here, so that no call is left
		// without its result in the conversation.
		back := s.feedback(m, refused)
		if err := s.keep(back); err != nil {
			return out, err
		}
		if err := emitMessage(emit, back); err != nil {
			return out, err
		}
		out.Messages = append(out.Messages, back)
		if last {
			return out, &AnswerError{Type: s.ans.ans.Name, Raw: string(raw), Attempts: s.attempts, Err: refused}
		}
		req = append(append(slices.Clip(req), resp.Messages...), back)
	}
}

// answerIn finds the answer a pass ended with: the arguments of the answer tool's call, or the text of the last
// assistant message. ok is false when the pass ended otherwise: waiting for approvals, handed off, or after the
// run's last model call.
func (s *answerStage) answerIn(msgs []chat.Message) (m chat.Message, raw json.RawMessage, ok bool) {
	if len(msgs) == 0 {
		return m, nil, false
	}
	m = msgs[len(msgs)-1]
	if m.Role != chat.RoleAssistant {
		return m, nil, false
	}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.ApprovalRequest:
			return m, nil, false
		case chat.ToolCall:
			if p.Name == AnswerToolName && s.mode == AnswerTool {
				return m, p.Arguments, true
			}
		}
	}
	return m, json.RawMessage(m.Text()), true
}

// errNoAnswer is why a run that spent its model calls on tools ends without an answer.
var errNoAnswer = errors.New("the run used all its model calls before the model answered")

// spent reports whether a pass ended because the run's model calls were spent: its last message answers calls
// with the tool loop's iteration limit.
func spent(msgs []chat.Message) bool {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != chat.RoleTool {
		return false
	}
	for _, p := range msgs[len(msgs)-1].Parts {
		if r, ok := p.(chat.ToolResult); ok && r.Error == iterationLimitText {
			return true
		}
	}
	return false
}

// check decodes an answer and runs the validators. data is the answer as the Result keeps it; refused says why
// the model must answer again; err ends the run.
func (s *answerStage) check(ctx context.Context, raw json.RawMessage) (data json.RawMessage, value any, refused, err error) {
	data = jsonOf(raw)
	if s.strict {
		data = s.ans.strict.Restore(data)
	}
	value, refused = s.ans.ans.Decode(data)
	if refused != nil {
		return nil, nil, refused, nil
	}
	for _, v := range s.ans.validators {
		if err := v(ctx, value); err != nil {
			var te *validatorTypeError
			if errors.As(err, &te) {
				return nil, nil, nil, te
			}
			return nil, nil, err, nil
		}
	}
	return data, value, nil, nil
}

// jsonOf returns the JSON value in an answer's text: the text itself, or what is inside a Markdown code fence,
// or from its first brace to its last, which a prompted model may write around it.
func jsonOf(raw json.RawMessage) json.RawMessage {
	t := strings.TrimSpace(string(raw))
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || t == "" {
		return json.RawMessage(t)
	}
	if i := strings.Index(t, "```"); i >= 0 {
		rest := t[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			return json.RawMessage(strings.TrimSpace(rest[:j]))
		}
	}
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		return json.RawMessage(t[i : j+1])
	}
	return json.RawMessage(t)
}

// notRunText answers the agent's tool calls the model made beside its answer.
const notRunText = "not run: the answer ended the run"

// accept ends the pass with the answer. In tool mode the answer tool's call is answered, and the answer follows
// as the assistant's text, so that the conversation's last message holds it in every mode.
func (s *answerStage) accept(out *chat.Response, m chat.Message, data json.RawMessage, emit emitFunc) error {
	if calls := m.ToolCalls(); len(calls) > 0 {
		res := chat.Message{Role: chat.RoleTool, AuthorName: s.ask.name(), Parts: make([]chat.Part, len(calls))}
		for i, c := range calls {
			if c.Name == AnswerToolName {
				res.Parts[i] = chat.ToolResult{CallID: c.ID, Result: json.RawMessage(`"accepted"`)}
			} else {
				res.Parts[i] = chat.ToolResult{CallID: c.ID, Error: notRunText}
			}
		}
		text := chat.Message{Role: chat.RoleAssistant, AuthorName: s.ask.name(), Parts: []chat.Part{chat.Text{Text: string(data)}}}
		out.Messages = append(out.Messages, res, text)
		if err := s.keep(res, text); err != nil {
			return err
		}
		if err := emitMessage(emit, res); err != nil {
			return err
		}
		if err := emitMessage(emit, text); err != nil {
			return err
		}
	}
	if emit != nil && !emit(chat.Update{Answer: &chat.AnswerUpdate{Type: s.ans.ans.Name, Value: data, Final: true}}) {
		return errStopped
	}
	return nil
}

// feedback is the message that sends a refused answer back: the answer tool's result in tool mode, a user
// message otherwise.
func (s *answerStage) feedback(m chat.Message, refused error) chat.Message {
	calls := m.ToolCalls()
	if len(calls) == 0 {
		how := "Answer again with the corrected JSON only."
		if s.mode == AnswerTool {
			how = "Give your answer by calling the " + AnswerToolName + " tool."
		}
		text := fmt.Sprintf("Your answer was not accepted: %s\n%s", refused, how)
		return chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}}
	}
	res := chat.Message{Role: chat.RoleTool, AuthorName: s.ask.name(), Parts: make([]chat.Part, len(calls))}
	for i, c := range calls {
		if c.Name == AnswerToolName {
			res.Parts[i] = chat.ToolResult{CallID: c.ID, Error: fmt.Sprintf("the answer was not accepted: %s; call %s again with the corrected answer", refused, AnswerToolName)}
		} else {
			res.Parts[i] = chat.ToolResult{CallID: c.ID, Error: "not run: answer first, or call the tools without " + AnswerToolName}
		}
	}
	return res
}

// keep stores the messages the stage adds, in a run with a conversation.
func (s *answerStage) keep(msgs ...chat.Message) error {
	if s.cp == nil {
		return nil
	}
	return s.cp.keep(msgs...)
}

// emitMessage emits a message the stage adds, whole.
func emitMessage(emit emitFunc, m chat.Message) error {
	if emit != nil && !emit(chat.Update{Role: m.Role, AuthorName: m.AuthorName, Parts: m.Parts}) {
		return errStopped
	}
	return nil
}

// partials wraps emit so that the answer's text, as it streams, is followed by its partial values.
func (s *answerStage) partials(emit emitFunc) emitFunc {
	return func(u chat.Update) bool {
		if !emit(u) {
			return false
		}
		if u.Answer != nil || u.Progress != nil || u.Steering {
			return true
		}
		if u.Role != "" && u.Role != chat.RoleAssistant {
			s.partial.reset() // tool results: the text so far was not the answer
			return true
		}
		for _, p := range u.Parts {
			switch p := p.(type) {
			case chat.Text:
				if v := s.partial.add(p.Text); v != nil {
					if !emit(chat.Update{Answer: &chat.AnswerUpdate{Type: s.ans.ans.Name, Value: v}}) {
						return false
					}
				}
			case chat.ToolCall, chat.ApprovalRequest:
				s.partial.reset()
			}
		}
		return true
	}
}
