package agent

import (
	"context"
	"encoding/json"
	"fmt"
)

// CallerStanding returns a copy of the standing approvals of the run that invokes the current tool, as JSON that
// [StandingApprovals] takes, or nil when it has none. It sees the run only from the context of a tool whose
// [toolset.State.Delegate] is set (a tool that runs another agent, as [AsTool] makes): the tool loop puts the run
// there for such tools alone. The run's settings id, conversation and mode are in the call's [toolset.Call.Run].
func CallerStanding(ctx context.Context) json.RawMessage {
	in, _ := ctx.Value(callerKey{}).(*inherited)
	if in == nil {
		return nil
	}
	d := fromStanding(in.standing)
	if len(d) == 0 {
		return nil
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	return data
}

// StandingApprovals seeds the run with standing approvals that [CallerStanding] returned, in addition to those its
// conversation stored: what the user approved for the rest of one conversation holds in a run another agent
// started for it. Empty data seeds none; data of another form makes the run fail before anything is stored.
func StandingApprovals(data json.RawMessage) RunOption {
	return func(r *runInput) {
		if len(data) == 0 || string(data) == "null" {
			return
		}
		var d []standingData
		if err := json.Unmarshal(data, &d); err != nil {
			r.err = fmt.Errorf("agent: standing approvals: %w", err)
			return
		}
		r.standing = append(r.standing, toStanding(d)...)
	}
}
