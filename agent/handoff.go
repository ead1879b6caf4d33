package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// handoffSchema is the arguments' schema of every handoff tool.
var handoffSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"reason":{"type":"string","description":"Why the conversation goes to this agent, for the agent taking over."}` +
	`},"additionalProperties":false}`)

// ErrSelfHandoff reports a host given itself as a handoff target.
var ErrSelfHandoff = errors.New("agent: an agent cannot hand off to itself")

// HandoffLimitError reports a handoff call made after the run was handed on MaxHandoffs times. The calling model
// reads it and goes on itself.
type HandoffLimitError struct {
	// Agent is the agent the model asked for.
	Agent string
	// Limit is how many handoffs one run may make.
	Limit int
}

func (e *HandoffLimitError) Error() string {
	return fmt.Sprintf("the conversation was not handed off to %s: this request was already handed on %d times, the limit; answer it yourself", e.Agent, e.Limit)
}

// UnknownAgentError reports a conversation whose last answer came from an agent the host cannot hand off to,
// directly or through its targets: the agent was removed from the configuration, or the run was started on an
// unrelated host. The run starts nothing and stores nothing.
type UnknownAgentError struct {
	// ConversationID is the conversation the run was asked to continue.
	ConversationID string
	// Agent is the name of the agent that answered last.
	Agent string
	// Host is the name of the agent the run was started on.
	Host string
}

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("conversation %q was last answered by agent %q, which agent %s cannot hand off to: add it to Config.Handoffs of an agent reachable from %s",
		e.ConversationID, e.Agent, e.Host, e.Host)
}

// AddHandoffs lets h hand its conversations to more agents, in addition to Config.Handoffs: the way to declare
// handoffs that go both ways, since a host must exist before another names it. Call it before h's runs start. It
// fails, adding nothing, on a nil host, on h itself ([ErrSelfHandoff]), and on two targets whose tools would take
// the same name, and on a target without Config.Store.
func (h *Host) AddHandoffs(targets ...Handoff) error {
	h.handoffs.mu.Lock()
	defer h.handoffs.mu.Unlock()
	out := slices.Clone(h.handoffs.targets)
	for _, t := range targets {
		switch {
		case t.To == nil:
			return fmt.Errorf("agent %s: a handoff without a host", h.decl.Name)
		case t.To == h || t.To.decl.Name == h.decl.Name:
			return fmt.Errorf("agent %s: %w", h.decl.Name, ErrSelfHandoff)
		case t.To.cfg.Store == nil:
			// The target stores its approved calls as started, and reads its stored settings, through its own.
			return fmt.Errorf("agent %s: the handoff target %s has no Config.Store: give it the store of the conversations it takes over", h.decl.Name, t.To.decl.Name)
		}
		name := handoffToolName(t.To.decl.Name)
		if i := slices.IndexFunc(out, func(o handoffTarget) bool { return o.tool.Name == name }); i >= 0 {
			if out[i].host == t.To {
				continue
			}
			return fmt.Errorf("agent %s: agents %s and %s would both be handed off to with %s", h.decl.Name, out[i].host.decl.Name, t.To.decl.Name, name)
		}
		out = append(out, handoffTarget{host: t.To, tool: newHandoffTool(name, t)})
	}
	h.handoffs.targets = out
	for _, t := range out {
		joinFeeds(h, t.host) // a watcher reached through h follows the runs h hands on
	}
	return nil
}

// newHandoffTool declares the tool of one target. The tool loop passes its calls out instead of invoking it; the
// invoker runs only when the run may not be handed on again.
func newHandoffTool(name string, t Handoff) *toolset.Tool {
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("Hands the conversation over to the %s agent, which answers from here on, this message and the next ones.", t.To.decl.Name)
	}
	target := t.To.decl.Name
	return &toolset.Tool{
		Name:        name,
		Description: desc,
		Schema:      handoffSchema,
		// Plan mode keeps it: the mode goes with the conversation, so the agent taking over plans too.
		ReadOnly: true,
		ID:       "typeshift.handoff." + target,
		Invoke: func(_ context.Context, call *toolset.Call) (json.RawMessage, error) {
			if _, err := decodeReason(call.Arguments); err != nil {
				return nil, err
			}
			return nil, &HandoffLimitError{Agent: target, Limit: MaxHandoffs}
		},
		State: &toolset.State{},
	}
}

// handoffToolName is handoff_to_ and name in snake case, keeping only what tool names allow.
func handoffToolName(name string) string { return agentToolName(handoffToolPrefix, name) }

// agentToolName is the name of a tool that stands for an agent (a handoff or a sub-agent tool): prefix and the
// agent's name in snake case, keeping only lower-case letters and digits, with one underscore for each run of
// separators, at most 64 bytes and without a trailing underscore.
func agentToolName(prefix, name string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range toolset.SnakeCase(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '_' || r == '-' || r == ' ' || r == '.':
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "_")
	}
	return out
}

// handoffTools returns the tools a run offers to hand its conversation on: none without a conversation, since
// only a stored conversation can go on with another agent and come back to it in the next run. A name one of the
// run's own tools takes already fails the run.
func (h *Host) handoffTools(conversationID string, tools []*toolset.Tool) ([]*toolset.Tool, error) {
	if conversationID == "" {
		return tools, nil
	}
	for _, t := range h.handoffs.list() {
		if findTool(tools, t.tool.Name) != nil {
			return nil, fmt.Errorf("agent %s: tool %q takes the name of the handoff to agent %s", h.decl.Name, t.tool.Name, t.host.decl.Name)
		}
		tools = append(tools, t.tool)
	}
	return tools, nil
}

// findAgent returns the host of the agent called name among h and the hosts h may hand off to, directly or
// through their own targets, nearest first.
func (h *Host) findAgent(name string) *Host {
	return h.reach(func(x *Host) bool { return x.decl.Name == name })
}

// switchTo makes st the conversation's run from now on: its steps are stored under st's agent, and steering for
// the conversation reaches it through its host. (st's stages were given the conversation when they were built.)
func (c *conversationRun) switchTo(st *runState) {
	c.routing.handedOn(c.st)
	c.runAs(st)
}

// route decides whose run a conversation's run is: the agent that answered it last, when that is not the host's
// own, found among the hosts h may hand off to, or an [UnknownAgentError]. It returns the host and the state of
// the run to build: h and st, or the agent's, continuing st. Nothing is resolved before it, so the run's tools
// are resolved once, by the agent that runs them.
func (h *Host) route(conv *conversationRun, st *runState) (*Host, *runState, error) {
	r := &conv.routing
	last := r.answeredLast()
	if last == "" || last == h.decl.Name {
		return h, st, nil
	}
	to := h.findAgent(last)
	if to == nil {
		return h, st, &UnknownAgentError{ConversationID: conv.id, Agent: last, Host: h.decl.Name}
	}
	next := to.continued(st)
	conv.switchTo(next)
	r.routedAtStart()
	return to, next, nil
}

// flushHandoff stores the handoff call's result under the agent that made it, before the next agent's first
// model call would store it under its own name.
func (c *conversationRun) flushHandoff(ctx context.Context, msgs []chat.Message) error {
	tail := c.unstored(msgs)
	if len(tail) == 0 {
		return nil
	}
	e, err := marshalEntry(storage.EntryToolResults, tail)
	if err == nil {
		err = c.append(ctx, "storing the handoff", e)
	}
	if err != nil {
		return c.fail(err)
	}
	c.learn(tail)
	return nil
}

// respond runs the conversation's run through next, then through each agent it is handed to, and returns the
// whole run's response: every agent's messages, in order. emit, when not nil, receives a streaming run's updates.
func (c *conversationRun) respond(ctx context.Context, next chat.Client, msgs []chat.Message, opts *chat.Options, emit emitFunc) (*chat.Response, error) {
	r := &c.routing
	resp, err := callNext(ctx, next, msgs, opts, emit, false)
	for err == nil {
		h := r.take()
		if h == nil {
			break
		}
		if resp != nil {
			msgs = append(slices.Clip(msgs), resp.Messages...)
		}
		if err = c.flushHandoff(ctx, msgs); err != nil {
			break
		}
		from := c.st
		st, stages, perr := h.to.continueWith(ctx, from, c)
		if perr != nil {
			err = perr
			break
		}
		st.costs.takeOver(ctx, from.costs) // the run keeps its place in its tenant's budget
		c.switchTo(st)
		var more *chat.Response
		more, err = callNext(ctx, stages, msgs, st.ask.options(), emit, false)
		r.first.usage.add(st.usage.total())
		if c, ok := st.costs.runCost(); ok {
			r.first.costs.addCost(c)
		}
		resp = joinResponses(resp, more)
	}
	if err == errStopped {
		err = errReaderStopped
	}
	return resp, err
}

// joinResponses appends b's messages to a's, and takes b's last call's details.
func joinResponses(a, b *chat.Response) *chat.Response {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	out := *b
	out.Messages = append(slices.Clip(a.Messages), b.Messages...)
	out.Usage = a.Usage.Add(b.Usage)
	return &out
}
