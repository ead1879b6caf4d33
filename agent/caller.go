package agent

import (
	"context"
)

// CallerApprovals returns a copy of the standing approvals of the run that invokes the current tool, or nil when
// it has none: what the user approved for the rest of the conversation, for a tool that starts another agent's
// run for its caller to seed that run with ([InheritApprovals]). It sees the run only from the context of a tool
// whose [toolset.State.Delegate] is set (a tool that runs another agent, as [AsTool] makes): the tool loop puts
// what a delegate inherits there for such tools alone. The run's settings id, conversation and mode are in the
// call's [toolset.Call.Run].
func CallerApprovals(ctx context.Context) []StandingApproval {
	in, _ := ctx.Value(callerKey{}).(*inherited)
	if in == nil {
		return nil
	}
	return fromStanding(in.standing)
}

// InheritApprovals seeds the run with standing approvals, such as [CallerApprovals] returned, in addition to
// those its conversation stored: what the user approved for the rest of one conversation holds in a run another
// agent started for it.
func InheritApprovals(s []StandingApproval) RunOption {
	return func(r *runInput) { r.standing = append(r.standing, toStanding(s)...) }
}
