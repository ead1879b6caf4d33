package agent

import (
	"slices"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// runState is what the stages of one run share. The host builds the pipeline anew for each run around one
// runState, so the stages stay plain chat.Clients and one Host serves concurrent runs.
type runState struct {
	h    *Host
	name string // the agent's name, for author names
	run  toolset.Run

	limits    limits
	remaining int // model calls left in the run's budget

	mode string
	// storedHistory says the run's history came from its conversation's store, so the approval requests in it
	// are the ones the host issued and stored; a caller-kept history's requests must verify (Host.requestID).
	storedHistory bool
	// visible are the tools the approval layer was given (before the mode narrowed them). A call to one of them,
	// or to a tool the agent's picks leave out, is answered as hidden, never as unknown.
	visible []*toolset.Tool
	// hidden are the names of tools a toolset.Filter in the run's sources hid (the agent's picks among them): a
	// call to one is answered as not available, never as unknown.
	hidden []string

	retries       map[string]int // consecutive retry steps by tool ID
	failingRounds int
	standing      []standingApproval
	pending       []chat.ApprovalRequest
	// last is the run of the agent the run was handed off to last, whose mode and pending requests are the run's;
	// nil when the run was not handed off.
	last *runState

	mu    sync.Mutex // guards usage: concurrent tools may run sub-agents that report it
	usage chat.Usage

	// The run's options, settings and the stages of its pipeline live here, so that a run allocates them at once.
	input     runInput
	resolved  resolved
	opts      chat.Options
	ids       uniqueCallIDs
	loop      toolLoop
	authors   authorNames
	approvals approvals

	meter *meterState // Config.Meter's part of the run, or nil (budget.go)

	claimed *claimed // the conversation claimed before the run's settings were read (lease.go)

	approvalsOut chat.Response // the approval stage's response, when it has more than one pass's
	loopOut      chat.Response // the tool loop's response of the current pass
	outs         []outcome     // the tool loop's per-call outcomes, reused from round to round
	outsBuf      [4]outcome
}

// picked reports whether one of the agent's picks leaves out a tool called name.
func (st *runState) picked(name string) bool {
	for _, u := range st.h.uses {
		if slices.Contains(u.exclude, name) || (len(u.include) > 0 && !slices.Contains(u.include, name)) {
			return true
		}
	}
	return false
}

// standingApproval approves later calls of a tool, or of a tool with these exact (canonical) arguments.
type standingApproval struct {
	toolID string
	args   string // "" approves every call of the tool
}

func (st *runState) addUsage(u chat.Usage) {
	st.mu.Lock()
	st.usage = st.usage.Add(u)
	st.mu.Unlock()
}

// totalUsage returns the run's usage so far. A sub-agent tool abandoned at its timeout may still be reporting.
func (st *runState) totalUsage() chat.Usage {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.usage
}

// findTool returns the tool called name among tools.
func findTool(tools []*toolset.Tool, name string) *toolset.Tool {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// findToolID returns the tool whose identity is id among tools.
func findToolID(tools []*toolset.Tool, id string) *toolset.Tool {
	for _, t := range tools {
		if toolID(t) == id {
			return t
		}
	}
	return nil
}

// toolID is a tool's identity; hand-built tools without an ID are known by their name.
func toolID(t *toolset.Tool) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Name
}
