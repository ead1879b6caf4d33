package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// HandoffToolPrefix begins the name of every handoff tool: handoff_to_ and the target agent's name in snake case.
// The name is reserved: the analyzer reports a tool of one's own that takes it.
const HandoffToolPrefix = "handoff_to_"

// MaxHandoffs is how many times one run may be handed on. A handoff call beyond it is answered with a
// [HandoffLimitError] the model reads, and the agent that made it goes on.
const MaxHandoffs = 4

// handoffSchema is the arguments' schema of every handoff tool.
var handoffSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"reason":{"type":"string","description":"Why the conversation goes to this agent, for the agent taking over."}` +
	`},"additionalProperties":false}`)

// Handoff is an agent a host may hand its conversations to. See docs/handoff.md.
type Handoff struct {
	// To is the host of the agent handed to.
	To *Host
	// Description tells the model when to hand the conversation over. The default names the agent only: say what
	// it knows and can do.
	Description string
}

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

// handoffs are a host's targets, each with its tool.
type handoffs struct {
	mu      sync.RWMutex
	targets []handoffTarget
}

type handoffTarget struct {
	host *Host
	tool *toolset.Tool
}

func (hs *handoffs) list() []handoffTarget {
	hs.mu.RLock()
	defer hs.mu.RUnlock()
	return hs.targets
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
func handoffToolName(name string) string { return agentToolName(HandoffToolPrefix, name) }

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

// reach visits h and the hosts it may hand off to, breadth first, each once, until found returns true, and returns
// the host it returned true for.
func (h *Host) reach(found func(*Host) bool) *Host {
	seen := map[*Host]bool{h: true}
	queue := []*Host{h}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if found(x) {
			return x
		}
		for _, t := range x.handoffs.list() {
			if !seen[t.host] {
				seen[t.host] = true
				queue = append(queue, t.host)
			}
		}
	}
	return nil
}

// routing is which agent a conversation's run goes to: the agent that answered it last, the handoff the tool loop
// passed out, and the agents the run went through. The tool loop of each agent the run is handed to records its
// handoff here; the conversation stage follows it (respond).
//
//typeshift:owned
type routing struct {
	lastAgent string          // the agent that answered last, as the conversation records it
	routed    bool            // the conversation was handed off once: its run ends record the agent
	handoff   *pendingHandoff // a handoff the tool loop passed out
	hops      int             // how many times the run was handed on
	first     *runState       // the run's first agent, once it was handed on, whose usage and cost the others' join
}

// resume takes the agent that answered the conversation last, as it was loaded.
func (r *routing) resume(agent string) { r.lastAgent = agent }

// pendingHandoff is a handoff call the tool loop passed out.
type pendingHandoff struct {
	to     *Host
	reason string
}

// handOffCalls passes a response's handoff call out of the tool loop. When one of calls is to a handoff tool the
// run offers and the run may still be handed on, it records the handoff in r and returns the results of every
// call: the handoff, and the other calls answered as not run, for the agent taking over to decide again.
// Otherwise (and always for a nil r: a run without a conversation) it returns false and the calls run as usual.
func (r *routing) handOffCalls(ask *runAsk, calls []chat.ToolCall, offered []*toolset.Tool) ([]chat.Part, bool) {
	if r == nil || r.hops >= MaxHandoffs {
		return nil, false
	}
	first := -1
	var to *Host
	var reason string
	for i, c := range calls {
		if !strings.HasPrefix(c.Name, HandoffToolPrefix) || findTool(offered, c.Name) == nil {
			continue
		}
		t := ask.h.handoffTarget(c.Name)
		if t == nil {
			continue
		}
		r, err := decodeReason(c.Arguments)
		if err != nil {
			continue // the tool's invoker answers it with the arguments' error
		}
		first, to, reason = i, t, r
		break
	}
	if first < 0 {
		return nil, false
	}
	results := make([]chat.Part, len(calls))
	for i, c := range calls {
		switch {
		case i == first:
			results[i] = chat.ToolResult{CallID: c.ID, Result: handoffResult(ask.name(), to.decl.Name, reason)}
		case strings.HasPrefix(c.Name, HandoffToolPrefix):
			results[i] = chat.ToolResult{CallID: c.ID, Error: fmt.Sprintf("not run: the conversation was handed off to %s", to.decl.Name)}
		default:
			results[i] = chat.ToolResult{CallID: c.ID, Error: fmt.Sprintf("not run: the conversation was handed off to %s, which decides what to do", to.decl.Name)}
		}
	}
	r.handoff = &pendingHandoff{to: to, reason: reason}
	return results, true
}

// handoffTarget returns the host the tool called name hands off to.
func (h *Host) handoffTarget(name string) *Host {
	for _, t := range h.handoffs.list() {
		if t.tool.Name == name {
			return t.host
		}
	}
	return nil
}

// handoffResult is the result of the handoff call: what the agent taking over reads of it.
func handoffResult(from, to, reason string) json.RawMessage {
	b := []byte(`{"handed_off_from":`)
	b = tooljson.AppendString(b, from)
	b = append(b, `,"handed_off_to":`...)
	b = tooljson.AppendString(b, to)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = tooljson.AppendString(b, reason)
	}
	return append(b, '}')
}

// decodeReason reads the arguments {"reason": ...}; empty arguments have no reason.
func decodeReason(args json.RawMessage) (string, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		return "", nil
	}
	d := tooljson.NewDecoder(args)
	reason := ""
	if d.Object() {
		for {
			k, ok := d.Field()
			if !ok {
				break
			}
			if string(k) == "reason" && !d.Null() {
				reason = d.String()
			} else if string(k) != "reason" {
				d.Unknown(k, "reason")
			}
		}
	}
	d.End()
	return reason, d.Err()
}

// continueWith prepares the run of the agent to, continuing the run of from in the same conversation: the same
// settings id, run id, mode and standing approvals, with to's own instructions, tools and options. It returns
// the stages of to's pipeline below the conversation. The run settings of the caller (the Settings option) are
// not carried: they were written for the agent the caller named.
func (to *Host) continueWith(ctx context.Context, from *runState, conv *conversationRun) (*runState, chat.Client, error) {
	st := to.continued(from)
	client, err := to.resolve(ctx, st, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("handing the conversation to agent %s: %w", to.decl.Name, err)
	}
	return st, to.stages(st, client, conv), nil
}

// continued returns the state of the run of to's agent that continues the run of from.
func (to *Host) continued(from *runState) *runState {
	st := &runState{}
	st.ask.continued(to, &from.ask, from.session.mode())
	st.session.continueFrom(&from.session, to.decl.Name)
	return st
}

// switchTo makes st the conversation's run from now on: its steps are stored under st's agent, and steering for
// the conversation reaches it through its host. (st's stages were given the conversation when they were built.)
func (c *conversationRun) switchTo(st *runState) {
	r := &c.routing
	if r.first == nil {
		r.first = c.st
	}
	c.runAs(st)
	r.routed = true
}

// route decides whose run a conversation's run is: the agent that answered it last, when that is not the host's
// own, found among the hosts h may hand off to, or an [UnknownAgentError]. It returns the host and the state of
// the run to build: h and st, or the agent's, continuing st. Nothing is resolved before it, so the run's tools
// are resolved once, by the agent that runs them.
func (h *Host) route(conv *conversationRun, st *runState) (*Host, *runState, error) {
	r := &conv.routing
	if r.lastAgent == "" {
		return h, st, nil
	}
	r.routed = true
	if r.lastAgent == h.decl.Name {
		return h, st, nil
	}
	to := h.findAgent(r.lastAgent)
	if to == nil {
		return h, st, &UnknownAgentError{ConversationID: conv.id, Agent: r.lastAgent, Host: h.decl.Name}
	}
	next := to.continued(st)
	conv.switchTo(next)
	// The routed run is the run, and its state the Result's: it is no handoff within the run.
	r.first = nil
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
	for err == nil && r.handoff != nil {
		h := r.handoff
		r.handoff = nil
		r.hops++
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
