package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// handoffToolPrefix begins the name of every handoff tool: handoff_to_ and the target agent's name in snake case.
// The name is reserved: the analyzer reports a tool of one's own that takes it.
const handoffToolPrefix = "handoff_to_"

// MaxHandoffs is how many times one run may be handed on. A handoff call beyond it is answered with a
// [HandoffLimitError] the model reads, and the agent that made it goes on.
const MaxHandoffs = 4

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

// answeredLast returns the agent that answered the conversation last, as it was loaded, or "". Once one is
// recorded, the run's ends record the agent whose run it is, so that the next run goes to it.
func (r *routing) answeredLast() string {
	if r.lastAgent != "" {
		r.routed = true
	}
	return r.lastAgent
}

// routedAtStart says the run was handed to the agent that answered last before it began: that agent's run is the
// run, and its state the Result's, so it is no handoff within the run.
func (r *routing) routedAtStart() { r.first = nil }

// handedOn records that the run goes on with another agent, from the run of from: the first agent's state keeps
// the whole run's usage and cost, and the run's ends record the agent.
func (r *routing) handedOn(from *runState) {
	if r.first == nil {
		r.first = from
	}
	r.routed = true
}

// take returns the handoff the tool loop passed out, counting the hop, or nil when there is none.
func (r *routing) take() *pendingHandoff {
	h := r.handoff
	if h != nil {
		r.handoff = nil
		r.hops++
	}
	return h
}

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
		if !strings.HasPrefix(c.Name, handoffToolPrefix) || findTool(offered, c.Name) == nil {
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
		case strings.HasPrefix(c.Name, handoffToolPrefix):
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
