package agent

import (
	"context"

	"github.com/typeshift-go/typeshift/agent/chat"
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

// ReportUsage adds model usage and cost that a tool caused, such as a remote agent's or another model's it called,
// to the run that invokes the tool: its [Result.Usage] and [Result.Cost] and its end entry, as a sub-agent's are.
// ctx is the context the tool was called with (or one derived from it). It reports whether there was such a run:
// outside a tool call, and once the call's context is done (a tool abandoned at its timeout), the report is
// dropped. The cost is added only under [Config.Meter]; the meter's budget windows count the model calls it
// metered itself.
func ReportUsage(ctx context.Context, u chat.Usage, c Cost) bool {
	r, _ := ctx.Value(reportKey{}).(*toolRunner)
	if r == nil || ctx.Err() != nil {
		return false
	}
	r.costs.addCost(c)
	r.usage.add(u)
	return true
}
