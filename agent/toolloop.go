package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// toolLoop calls the model and the tools it asks for, round after round, until the model answers without tool
// calls, a call needs approval, or the run's budget is spent. Each call to it is one pass; the approval layer
// above may start several passes in one run, and they share the run's budget.
type toolLoop struct {
	next    chat.Client
	ask     *runAsk     // read: the host, the tools filters hid
	rounds  *rounds     // the run's model calls and retries
	usage   *usageMeter // each model call's usage
	session *session    // read: the mode, for the answer to a call of a hidden tool
	shown   *shownTools // read: the tools the approval stage was given
	tools   *toolRunner // the tool-invocation chain
	routing *routing    // where a handoff call is recorded; nil without a conversation
	answer  string      // the answer tool's name in tool mode: a call of it ends the pass, unrun (answer.go)

	out     chat.Response // the pass's response, reused from pass to pass
	outs    []outcome     // the per-call outcomes, reused from round to round
	outsBuf [4]outcome
}

// rounds is what is left of a run's model calls, and its count of retries and failing rounds, against its limits.
// It is the tool loop's; the approval stage reads what is left.
//
//typeshift:owned
type rounds struct {
	limits        *limits        // read: the run's, in its resolved settings
	remaining     int            // model calls left in the run's budget
	retries       map[string]int // consecutive retry steps by tool ID
	failingRounds int
}

// newRounds is a run's rounds under its limits.
func newRounds(l *limits) rounds { return rounds{limits: l, remaining: l.maxIterations} }

// left is how many model calls the run may still make.
func (b *rounds) left() int { return b.remaining }

// take spends one model call and reports whether it is the last.
func (b *rounds) take() (last bool) {
	b.remaining--
	return b.remaining == 0
}

func (l *toolLoop) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return l.pass(ctx, msgs, opts, nil)
}

func (l *toolLoop) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return streamOf(func(emit emitFunc) (*chat.Response, error) { return l.pass(ctx, msgs, opts, emit) })
}

// iterationLimitText answers calls made on the last iteration, when no tools were offered.
const iterationLimitText = "not run: the run has used all its model calls, so no more tools can be called"

func (l *toolLoop) pass(ctx context.Context, msgs []chat.Message, opts *chat.Options, emit emitFunc) (*chat.Response, error) {
	// The request grows by the pass's messages; the pass's response is the tail of the request.
	out := &l.out // the approval stage reads it before it starts another pass
	*out = chat.Response{}
	req := make([]chat.Message, len(msgs), len(msgs)+4)
	copy(req, msgs)
	defer func() { out.Messages = req[len(msgs):len(req):len(req)] }()
	for l.rounds.left() > 0 {
		last := l.rounds.take()
		o := opts
		if last && len(opts.Tools) > 0 {
			// The last model call offers no tools; the caller's options stay as they are.
			o = opts.Clone()
			o.Tools, o.ToolChoice, o.ParallelToolCalls = nil, "", nil
			if t := findTool(opts.Tools, l.answer); l.answer != "" && t != nil {
				o.Tools = []*toolset.Tool{t} // the answer may still be given
			}
		}
		resp, err := callNext(ctx, l.next, req, o, emit, true)
		if resp != nil {
			l.usage.add(resp.Usage)
			out.Usage = out.Usage.Add(resp.Usage)
			out.ID, out.Model, out.FinishReason = resp.ID, resp.Model, resp.FinishReason
		}
		if err != nil {
			if resp != nil && emit == nil {
				req = append(req, resp.Messages...)
			}
			return out, err
		}
		calls, at := lastCalls(resp.Messages)
		if len(calls) == 0 {
			req = append(req, resp.Messages...)
			return out, nil
		}
		if l.answer != "" && slices.ContainsFunc(calls, func(c chat.ToolCall) bool { return c.Name == l.answer }) {
			// The answer ends the pass; the answer stage reads it and answers the calls.
			if emit != nil && !emit(callsUpdate(resp.Messages[at])) {
				return out, errStopped
			}
			req = append(req, resp.Messages...)
			return out, nil
		}
		if results, ok := l.routing.handOffCalls(l.ask, calls, o.Tools); ok {
			// A handoff ends the pass: the conversation layer goes on with the agent handed to.
			if emit != nil && !emit(callsUpdate(resp.Messages[at])) {
				return out, errStopped
			}
			req = append(req, resp.Messages...)
			req = append(req, chat.Message{Role: chat.RoleTool, Parts: results})
			if emit != nil && !emit(chat.Update{Role: chat.RoleTool, Parts: results}) {
				return out, errStopped
			}
			return out, nil
		}

		s := l.classify(calls, opts.Tools, last)
		if len(s.requests) > 0 {
			// The calls waiting for approval leave the assistant message: it shows their requests instead, so that
			// no provider sees a call without a result.
			resp.Messages = slices.Clone(resp.Messages)
			resp.Messages[at] = withRequests(resp.Messages[at], s.requests)
		}
		if emit != nil && !emit(callsUpdate(resp.Messages[at])) {
			return out, errStopped
		}
		req = append(req, resp.Messages...)
		ectx, stopProgress := progressTo(ctx, emit)
		results, stepErr := l.execute(ectx, calls, s)
		stopProgress()
		requests := s.requests
		if len(results) > 0 {
			req = append(req, chat.Message{Role: chat.RoleTool, Parts: results})
			if emit != nil && !emit(chat.Update{Role: chat.RoleTool, Parts: results}) {
				return out, errStopped
			}
		}
		if stepErr != nil || len(requests) > 0 || last {
			return out, stepErr
		}
	}
	return out, nil
}

// lastCalls returns the tool calls of the last message that has any, and its index.
func lastCalls(msgs []chat.Message) ([]chat.ToolCall, int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if calls := msgs[i].ToolCalls(); len(calls) > 0 {
			return calls, i
		}
	}
	return nil, -1
}

// withRequests returns m with the calls that requests wait for replaced by those requests.
func withRequests(m chat.Message, requests []chat.ApprovalRequest) chat.Message {
	parts := make([]chat.Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		if c, ok := p.(chat.ToolCall); ok {
			if i := slices.IndexFunc(requests, func(r chat.ApprovalRequest) bool { return r.Call.ID == c.ID }); i >= 0 {
				parts = append(parts, requests[i])
				continue
			}
		}
		parts = append(parts, p)
	}
	m.Parts = parts
	return m
}

// callsUpdate is the update that shows a streamed response's tool calls and approval requests, which the loop
// held back until it knew which calls wait for approval.
func callsUpdate(m chat.Message) chat.Update {
	u := chat.Update{Role: chat.RoleAssistant, AuthorName: m.AuthorName}
	for _, p := range m.Parts {
		switch p.(type) {
		case chat.ToolCall, chat.ApprovalRequest:
			u.Parts = append(u.Parts, p)
		}
	}
	return u
}

// outcome is what became of one call in a step.
type outcome struct {
	tool    *toolset.Tool
	failed  bool // the call failed in a way that counts towards the consecutive-failure limit
	retry   string
	ran     bool
	request bool
	toRun   bool
}

// step is what the loop does with the calls of one response.
type step struct {
	results  []chat.Part
	outs     []outcome
	requests []chat.ApprovalRequest
	toRun    int // how many calls are marked to run
}

// classify answers unknown, hidden and malformed calls, turns the calls that need approval into requests, and
// lists the calls to run.
func (l *toolLoop) classify(calls []chat.ToolCall, offered []*toolset.Tool, last bool) step {
	if l.outs == nil {
		l.outs = l.outsBuf[:0]
	}
	if cap(l.outs) < len(calls) {
		l.outs = make([]outcome, len(calls))
	}
	s := step{results: make([]chat.Part, len(calls)), outs: l.outs[:len(calls)]}
	clear(s.outs)
	for i, c := range calls {
		if last {
			s.results[i] = chat.ToolResult{CallID: c.ID, Error: iterationLimitText}
			continue
		}
		t := findTool(offered, c.Name)
		if t == nil {
			s.results[i] = chat.ToolResult{CallID: c.ID, Error: missingText(c.Name, offered, l.ask, l.session, l.shown)}
			s.outs[i].failed = true
			continue
		}
		s.outs[i].tool = t
		if msg := argumentsStoreText(c.Arguments); msg != "" {
			s.results[i] = chat.ToolResult{CallID: c.ID, Error: msg}
			s.outs[i].failed = true
			continue
		}
		if t.RequiresApproval {
			// Validate before deferring, so the model learns of bad arguments now, not after someone approved.
			if msg := validateArguments(t, c.Arguments); msg != "" {
				s.results[i] = chat.ToolResult{CallID: c.ID, Error: msg}
				s.outs[i].failed = true
				continue
			}
			s.requests = append(s.requests, l.ask.h.newRequest(c, toolID(t)))
			s.outs[i].request = true
			continue
		}
		s.outs[i].toRun = true
		s.toRun++
	}
	return s
}

// execute runs the step's calls, in order or concurrently, and returns the results of every answered call: those
// waiting for approval have none yet.
func (l *toolLoop) execute(ctx context.Context, calls []chat.ToolCall, s step) ([]chat.Part, error) {
	if l.rounds.limits.concurrentTools && s.toRun > 1 {
		var wg sync.WaitGroup
		for i := range s.outs {
			if s.outs[i].toRun {
				wg.Go(func() { l.run(ctx, calls, s, i) })
			}
		}
		wg.Wait()
	} else {
		for i := range s.outs {
			if !s.outs[i].toRun {
				continue
			}
			if ctx.Err() != nil {
				s.results[i] = chat.ToolResult{CallID: calls[i].ID, Error: "not run: the run was cancelled"}
				continue
			}
			l.run(ctx, calls, s, i)
		}
	}

	err := ctx.Err()
	if err == nil {
		err = l.rounds.count(s.outs, s.results)
	}
	if len(s.requests) == 0 {
		return s.results, err
	}
	answered := make([]chat.Part, 0, len(s.results)-len(s.requests))
	for i, r := range s.results {
		if !s.outs[i].request {
			answered = append(answered, r)
		}
	}
	return answered, err
}

// run runs the step's call i and records its outcome.
func (l *toolLoop) run(ctx context.Context, calls []chat.ToolCall, s step, i int) {
	res, err := l.tools.invoke(ctx, s.outs[i].tool, calls[i])
	s.results[i] = res
	s.outs[i].ran = true
	if err != nil {
		s.outs[i].failed = true
		var re *toolset.RetryError
		if errors.As(err, &re) {
			s.outs[i].retry = res.Error
		}
	}
}

// count updates the retry counts and the consecutive failing rounds after a step, and ends the run when a limit is
// passed.
func (b *rounds) count(outs []outcome, results []chat.Part) error {
	failed, lastErr := false, ""
	for i, o := range outs {
		if o.failed {
			failed = true
			if r, ok := results[i].(chat.ToolResult); ok {
				lastErr = r.Error
			}
		}
	}
	// Retries: a step in which a tool asked for a retry counts once for it; a step in which it only succeeded
	// clears its count.
	for i, o := range outs {
		if !o.ran {
			continue
		}
		id := toolID(o.tool)
		if o.retry == "" {
			if !o.failed && b.retries[id] > 0 && !slices.ContainsFunc(outs, func(p outcome) bool { return p.retry != "" && p.tool != nil && toolID(p.tool) == id }) {
				delete(b.retries, id)
			}
			continue
		}
		if slices.ContainsFunc(outs[:i], func(p outcome) bool { return p.retry != "" && toolID(p.tool) == id }) {
			continue // counted already in this step
		}
		if b.retries == nil {
			b.retries = make(map[string]int)
		}
		b.retries[id]++
		if b.retries[id] > b.limits.maxRetries {
			return &RetryLimitError{Tool: o.tool.Name, ToolID: id, Limit: b.limits.maxRetries, Message: o.retry}
		}
	}
	if !failed {
		b.failingRounds = 0
		return nil
	}
	b.failingRounds++
	if b.failingRounds >= max(b.limits.maxConsecutiveErrors, 1) {
		return &ToolFailuresError{Rounds: b.failingRounds, Last: lastErr}
	}
	return nil
}

// missingText answers a call of a tool that is not offered: hidden (left out by the agent's picks, or by the mode)
// or unknown.
func missingText(name string, offered []*toolset.Tool, ask *runAsk, s *session, shown *shownTools) string {
	if t := findTool(shown.visible, name); t != nil && s.mode() == ModePlan {
		return fmt.Sprintf("tool %q is not available in plan mode because it can change data; investigate with the read-only tools and call %s with your plan", name, ExitPlanModeTool)
	}
	if findTool(shown.visible, name) != nil || ask.h.picked(name) {
		return fmt.Sprintf("tool %q is not available to this agent now; do not call it again", name)
	}
	if slices.Contains(ask.hidden, name) {
		return fmt.Sprintf("tool %q is not available in this run; do not call it again", name)
	}
	names := make([]string, len(offered))
	for i, t := range offered {
		names[i] = t.Name
	}
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q; no tools are available", name)
	}
	return fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
}

// checkArguments reports arguments that are not a JSON object, in words the model can act on. Generated tools
// check the rest when they decode; see docs/tool-approval.md.
func checkArguments(args []byte) string {
	s := strings.TrimSpace(string(args))
	if s == "" {
		return ""
	}
	if msg := argumentsSyntaxText(args); msg != "" {
		return msg
	}
	if s[0] != '{' {
		return "the arguments must be a JSON object"
	}
	return ""
}

// validateArguments reports, in words the model can act on, arguments the tool would refuse: JSON that is not an
// object, and, for a tool with a decoder ([toolset.Tool.Decode], which generated tools have), everything the
// decoder refuses: a missing property, a wrong type, a value out of range. The approval stage calls it before it
// defers a call, so that nobody is asked to approve a call that could not run.
func validateArguments(t *toolset.Tool, args json.RawMessage) string {
	if msg := checkArguments(args); msg != "" {
		return msg
	}
	if t.Decode == nil {
		return ""
	}
	if _, err := t.Decode(args); err != nil {
		return err.Error()
	}
	return ""
}
