package agent

import (
	"context"
	"encoding/json"
	"fmt"
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

// CallerStanding returns [CallerApprovals] as JSON that [StandingApprovals] takes, or nil when there are none.
//
// Deprecated: use CallerApprovals, whose value a job can carry as it is, and encode it where it is stored.
func CallerStanding(ctx context.Context) json.RawMessage {
	d := CallerApprovals(ctx)
	if len(d) == 0 {
		return nil
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	return data
}

// StandingApprovals seeds the run with standing approvals that [CallerStanding] returned, as [InheritApprovals]
// does. Empty data seeds none; data of another form makes the run fail before anything is stored.
//
// Deprecated: use InheritApprovals.
func StandingApprovals(data json.RawMessage) RunOption {
	return func(r *runInput) {
		if len(data) == 0 || string(data) == "null" {
			return
		}
		var d []StandingApproval
		if err := json.Unmarshal(data, &d); err != nil {
			r.err = fmt.Errorf("agent: standing approvals: %w", err)
			return
		}
		InheritApprovals(d)(r)
	}
}
