package agent

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// deniedText is what the model reads of a rejected call when the answer gives no reason.
const deniedText = "The tool call was denied."

// unansweredText is what the model reads of a call whose request the next run did not answer.
const unansweredText = "The tool call was not run: nobody approved it."

// approvals sits above the tool loop. Before the first pass it binds the answers in the input to the open requests
// of the history, and runs or rejects those calls. After each pass it decides the new requests it can (rules,
// standing approvals, auto mode) and starts another pass; what is left ends the run as pending. It also applies
// the run's mode to the tools offered.
type approvals struct {
	next    chat.Client
	ask     *runAsk     // read: the host (rules, the plan tool, the request key), the agent's name
	session *session    // binds answers against it; records standing approvals, the mode, what is left pending
	rounds  *rounds     // read: whether another pass may start
	shown   *shownTools // the tools the stage was given, for the tool loop
	tools   *toolRunner // runs the calls it decides

	out chat.Response // the stage's response, when it has more than one pass's
}

// shownTools are the tools the approval stage was given (before the mode narrowed them). A call to one of them,
// or to a tool the agent's picks leave out, is answered as hidden, never as unknown.
//
//typeshift:owned
type shownTools struct {
	visible []*toolset.Tool
}

func (a *approvals) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return a.run(ctx, msgs, opts, nil)
}

func (a *approvals) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return streamOf(func(emit emitFunc) (*chat.Response, error) { return a.run(ctx, msgs, opts, emit) })
}

// resolution is a request's decided fate.
type resolution struct {
	req      chat.ApprovalRequest
	approved bool
	reason   string
}

func (a *approvals) run(ctx context.Context, msgs []chat.Message, opts *chat.Options, emit emitFunc) (*chat.Response, error) {
	a.shown.visible = opts.Tools
	out := &a.out // a run middleware may call the stage again: start afresh
	*out = chat.Response{}

	msgs, open, err := a.bind(ctx, msgs)
	if err != nil {
		return nil, err
	}
	if len(open) > 0 {
		res := a.resolve(ctx, open, opts)
		if err := a.add(out, res, emit); err != nil {
			return out, err
		}
		msgs = append(slices.Clip(msgs), res...)
	}

	for a.rounds.left() > 0 {
		resp, err := callNext(ctx, a.next, msgs, modeOptions(a.session.mode(), a.ask.h.exitPlan, opts), emit, false)
		if len(open) == 0 && len(out.Messages) == 0 && (err != nil || resp == nil || !hasApprovalParts(resp.Messages)) {
			return resp, err // the common case: nothing to approve, the pass's response is the run's
		}
		if resp != nil {
			out.Messages = append(out.Messages, resp.Messages...)
			out.Usage = out.Usage.Add(resp.Usage)
			out.ID, out.Model, out.FinishReason = resp.ID, resp.Model, resp.FinishReason
		}
		if err != nil {
			return out, err
		}
		reqs := requestsIn(resp.Messages)
		if len(reqs) == 0 {
			return out, nil
		}
		var decided []resolution
		var asked []chat.ApprovalRequest
		for _, r := range reqs {
			switch a.session.decide(ctx, a.ask.h.cfg.Rules, a.tool(r.ToolID, opts), r) {
			case Allow:
				decided = append(decided, resolution{req: r, approved: true})
			case Deny:
				decided = append(decided, resolution{req: r, reason: deniedText})
			default:
				asked = append(asked, r)
			}
		}
		if len(asked) > 0 {
			// The decided requests wait with the rest: the next run decides them again, the same way.
			a.session.wait(asked)
			return out, nil
		}
		res := a.resolve(ctx, decided, opts)
		if err := a.add(out, res, emit); err != nil {
			return out, err
		}
		msgs = append(append(slices.Clip(msgs), stripApprovals(resp.Messages)...), res...)
	}
	return out, nil
}

// add appends messages to the response and emits them.
func (a *approvals) add(out *chat.Response, msgs []chat.Message, emit emitFunc) error {
	out.Messages = append(out.Messages, msgs...)
	if emit == nil {
		return nil
	}
	for _, m := range msgs {
		if !emit(chat.Update{Role: m.Role, AuthorName: m.AuthorName, Parts: m.Parts}) {
			return errStopped
		}
	}
	return nil
}

// tool finds the tool of a request by its identity, among the tools the run was given and plan mode's own.
func (a *approvals) tool(id string, opts *chat.Options) *toolset.Tool {
	if id == ExitPlanModeID {
		return a.ask.h.exitPlan
	}
	return findToolID(opts.Tools, id)
}

// bind checks the answers in msgs against the requests there and returns msgs without approval parts (no provider
// reads them) and the open requests, each with its answer or, failing one, the decision of the rules.
func (a *approvals) bind(ctx context.Context, msgs []chat.Message) ([]chat.Message, []resolution, error) {
	if !hasApprovalParts(msgs) {
		return msgs, nil, nil
	}
	type request struct {
		req      chat.ApprovalRequest
		answered bool
		answer   chat.ApprovalAnswer
	}
	var reqs []*request
	resultAt := map[string]int{} // call ID -> index of the first message holding its result
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ApprovalRequest:
				if !a.session.storedHistory && p.ID != a.ask.h.requestID(p.Call, p.ToolID) {
					return nil, nil, &ApprovalError{RequestID: p.ID, Reason: ApprovalTampered}
				}
				reqs = append(reqs, &request{req: p})
			case chat.ToolResult:
				if _, ok := resultAt[p.CallID]; !ok {
					resultAt[p.CallID] = i
				}
			}
		}
	}
	for i, m := range msgs {
		for _, p := range m.Parts {
			ans, ok := p.(chat.ApprovalAnswer)
			if !ok {
				continue
			}
			j := slices.IndexFunc(reqs, func(r *request) bool { return r.req.ID == ans.RequestID })
			if j < 0 {
				return nil, nil, &ApprovalError{RequestID: ans.RequestID, Reason: ApprovalUnknown}
			}
			r := reqs[j]
			if at, closed := resultAt[r.req.Call.ID]; closed {
				if i > at {
					return nil, nil, &ApprovalError{RequestID: ans.RequestID, Reason: ApprovalClosed}
				}
				// The answer that closed the request, earlier in the conversation: only its standing approval counts.
				if ans.Approved {
					a.session.stand(r.req, ans.Always)
				}
				continue
			}
			if r.answered {
				return nil, nil, &ApprovalError{RequestID: ans.RequestID, Reason: ApprovalAnsweredTwice}
			}
			r.answered, r.answer = true, ans
			if ans.Approved {
				a.session.stand(r.req, ans.Always)
			}
		}
	}
	var open []resolution
	for _, r := range reqs {
		if _, closed := resultAt[r.req.Call.ID]; closed {
			continue
		}
		res := resolution{req: r.req}
		switch {
		case r.answered:
			res.approved, res.reason = r.answer.Approved, r.answer.Reason
			if !res.approved && res.reason == "" {
				res.reason = deniedText
			}
		default:
			switch a.session.decide(ctx, a.ask.h.cfg.Rules, a.tool(r.req.ToolID, &chat.Options{Tools: a.shown.visible}), r.req) {
			case Allow:
				res.approved = true
			case Deny:
				res.reason = deniedText
			default:
				res.reason = unansweredText
			}
		}
		open = append(open, res)
	}
	return stripApprovals(msgs), open, nil
}

// resolve runs the approved calls and rejects the others. It returns an assistant message with the calls, exactly
// as their requests showed them, and a tool message with their results.
func (a *approvals) resolve(ctx context.Context, rs []resolution, opts *chat.Options) []chat.Message {
	calls := make([]chat.Part, len(rs))
	results := make([]chat.Part, len(rs))
	for i, r := range rs {
		call := r.req.Call
		calls[i] = call
		if !r.approved {
			if r.req.ToolID == ExitPlanModeID {
				results[i] = chat.ToolResult{CallID: call.ID, Error: "The plan was not approved: " + sentence(r.reason) + " Stay in plan mode and revise it."}
				continue
			}
			run := a.session.view()
			notifyRejected(ctx, a.tool(r.req.ToolID, opts), &toolset.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments, Run: &run}, r.reason)
			results[i] = chat.ToolResult{CallID: call.ID, Error: r.reason}
			continue
		}
		if r.req.ToolID == ExitPlanModeID {
			a.session.setMode(ModeDefault)
			results[i] = chat.ToolResult{CallID: call.ID, Result: planApprovedText}
			continue
		}
		t := a.tool(r.req.ToolID, opts)
		switch {
		case t == nil:
			results[i] = chat.ToolResult{CallID: call.ID, Error: fmt.Sprintf("tool %q is no longer available", call.Name)}
		case a.session.mode() == ModePlan && !t.ReadOnly:
			results[i] = chat.ToolResult{CallID: call.ID, Error: missingText(call.Name, nil, a.ask, a.session, a.shown)}
		default:
			results[i], _ = a.tools.invoke(ctx, t, call)
		}
	}
	return []chat.Message{
		{Role: chat.RoleAssistant, AuthorName: a.ask.name(), Parts: calls},
		{Role: chat.RoleTool, AuthorName: a.ask.name(), Parts: results},
	}
}

func hasApprovalParts(msgs []chat.Message) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.(type) {
			case chat.ApprovalRequest, chat.ApprovalAnswer:
				return true
			}
		}
	}
	return false
}

// stripApprovals returns msgs without approval requests and answers, dropping messages left empty.
func stripApprovals(msgs []chat.Message) []chat.Message {
	if !hasApprovalParts(msgs) {
		return msgs
	}
	out := make([]chat.Message, 0, len(msgs))
	for _, m := range msgs {
		var parts []chat.Part
		for _, p := range m.Parts {
			switch p.(type) {
			case chat.ApprovalRequest, chat.ApprovalAnswer:
			default:
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			continue
		}
		m.Parts = parts
		out = append(out, m)
	}
	return out
}

// sentence ends text with a full stop unless it already ends a sentence, so that a person's short reason reads
// well inside the message the model gets.
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasSuffix(text, ".") || strings.HasSuffix(text, "!") || strings.HasSuffix(text, "?") {
		return text
	}
	return text + "."
}

// rejectedFunc is what OnRejected keeps in a tool's State.
type rejectedFunc func(ctx context.Context, call *toolset.Call, reason string)

// rejectedKey is the key of a tool's rejectedFunc in its toolset.State.
type rejectedKey struct{}

// OnRejected makes f hear of each call of t that is resolved as not approved, in the run that resolves it, before
// the model reads the rejection. A tool whose approval stands for something outside the run (a request of an agent
// working in the background) uses it to pass the rejection on. It is kept in t.State, so every prefixed or renamed
// copy of t shares it; t.State must not be nil. The call is rejected by an answer, a rule or the run's mode, or
// left unanswered; call.Run describes the run that resolved it; reason is what the model reads.
func OnRejected(t *toolset.Tool, f func(ctx context.Context, call *toolset.Call, reason string)) {
	if t != nil && t.State != nil {
		t.State.SetValue(rejectedKey{}, rejectedFunc(f))
	}
}

// notifyRejected calls the rejectedFunc of t, if it has one.
func notifyRejected(ctx context.Context, t *toolset.Tool, call *toolset.Call, reason string) {
	if t == nil || t.State == nil {
		return
	}
	if v, ok := t.State.Value(rejectedKey{}); ok {
		if f, ok := v.(rejectedFunc); ok && f != nil {
			f(ctx, call, reason)
		}
	}
}

// decide answers what it can of a request: the host's rules in order, then the standing approvals, then auto mode.
func (s *session) decide(ctx context.Context, rules []Rule, tool *toolset.Tool, req chat.ApprovalRequest) Decision {
	if tool != nil {
		for _, r := range rules {
			if d := r(ctx, tool, req.Call); d != Ask {
				return d
			}
		}
	}
	var canon string
	for _, a := range s.standing {
		if a.toolID != req.ToolID {
			continue
		}
		if a.args == "" {
			return Allow
		}
		if canon == "" {
			canon = canonicalJSON(req.Call.Arguments)
		}
		if a.args == canon {
			return Allow
		}
	}
	if s.mode() == ModeAuto {
		return Allow
	}
	return Ask
}
