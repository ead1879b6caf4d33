package agent

import (
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
	// visible are the tools the approval layer was given (before the mode narrowed them); excluded are the tools
	// the agent's picks leave out. A call to either is answered as hidden, never as unknown.
	visible  []*toolset.Tool
	excluded []*toolset.Tool

	retries       map[string]int // consecutive retry steps by tool ID
	failingRounds int
	standing      []standingApproval
	pending       []chat.ApprovalRequest

	mu    sync.Mutex // guards usage: concurrent tools may run sub-agents that report it
	usage chat.Usage
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
