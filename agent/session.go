package agent

import (
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// session is the state of a run that outlasts it through its conversation: the mode, the standing approvals and
// the approval requests the run leaves pending. It holds one copy of each; its fields are written here only, by
// the approval stage (through stand, setMode and wait) and by the host when the run starts (start, load,
// continueFrom).
//
//typeshift:owned
type session struct {
	// run is what tools and context providers see of the run; run.Mode is the run's mode, its only copy.
	run      toolset.Run
	standing []standingApproval
	pending  []chat.ApprovalRequest
	// storedHistory says the run's history came from its conversation's store, so the approval requests in it
	// are the ones the host issued and stored; a caller-kept history's requests must verify (Host.requestID).
	storedHistory bool
}

// view is what tools, their sources and context providers are shown of the run: a copy, theirs to keep or write
// to, so that nothing they do reaches the run's own state.
func (s *session) view() toolset.Run { return s.run }

// mode is the run's mode now.
func (s *session) mode() string { return s.run.Mode }

// start begins the session of a run with what it was asked: its run, its mode and the standing approvals it
// inherits (a sub-agent's, from its caller).
func (s *session) start(run toolset.Run, standing []standingApproval) {
	s.run, s.standing = run, standing
}

// load takes in what the run's conversation stored: its mode (unless the run was given one) and its standing
// approvals, which come before the inherited ones.
func (s *session) load(mode string, keepMode bool, standing []standingApproval) {
	if !keepMode {
		s.run.Mode = mode
	}
	s.standing = append(standing, s.standing...)
	s.storedHistory = true
}

// continueFrom begins the session of the agent a run is handed to: the same run, mode and standing approvals
// (copied), under the agent's name.
func (s *session) continueFrom(from *session, agent string) {
	s.run = from.run
	s.run.Agent = agent
	s.standing = slices.Clone(from.standing)
	s.storedHistory = from.storedHistory
}

// setMode changes the run's mode (an approved plan leaves plan mode).
func (s *session) setMode(mode string) { s.run.Mode = mode }

// stand records a standing approval given with an answer.
func (s *session) stand(req chat.ApprovalRequest, scope chat.Standing) {
	switch scope {
	case chat.ForTool:
		s.standing = append(s.standing, standingApproval{toolID: req.ToolID})
	case chat.ForArguments:
		s.standing = append(s.standing, standingApproval{toolID: req.ToolID, args: canonicalJSON(req.Call.Arguments)})
	}
}

// wait leaves requests pending: the run ends with them.
func (s *session) wait(reqs []chat.ApprovalRequest) { s.pending = reqs }

// saved is the session as a run's start, end and summary entries store it.
func (s *session) saved() savedState {
	return savedState{Mode: s.mode(), Standing: fromStanding(s.standing)}
}
