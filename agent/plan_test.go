package agent_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

func planTools(runs *atomic.Int32) []*toolset.Tool {
	return []*toolset.Tool{readOnly(echo("search")), echo("update"), closer(runs)}
}

func TestPlanMode(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(
		call(tc("1", "search", `{}`), tc("2", "update", `{}`)),
		call(tc("3", agent.ExitPlanModeTool, `{"plan":"1. update the ticket"}`)),
	)
	h := host(m, agent.Config{}, planTools(&runs)...)
	res, err := h.Run(context.Background(), agent.Text("fix it"), agent.Mode(agent.ModePlan))
	is.NoErr(err)
	// Only read-only tools and exit_plan_mode are offered; the planning instruction is appended.
	is.Equal(joined(m.Requests()[0].ToolNames()), "search,exit_plan_mode")
	is.True(strings.HasPrefix(m.Requests()[0].Options.Instructions, "Be brief.\n\n"))
	is.True(strings.Contains(m.Requests()[0].Options.Instructions, agent.PlanInstructions))
	got := results(res.New)
	is.Equal(string(got["1"].Result), `{}`)
	is.True(strings.Contains(got["2"].Error, `tool "update" is not available in plan mode`)) // hidden, not run
	// The plan waits for approval; the run stays in plan mode.
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].ToolID, agent.ExitPlanModeID)
	is.Equal(res.Mode, agent.ModePlan)

	// Approving the plan switches the mode, and the run goes on with every tool.
	m2 := script(call(tc("4", "update", `{"done":true}`)), say("updated"))
	h2 := host(m2, agent.Config{}, planTools(&runs)...)
	res2, err := h2.Run(context.Background(), agent.Messages(res.Messages), agent.Mode(res.Mode), agent.Approve(res.Pending[0].ID))
	is.NoErr(err)
	is.Equal(res2.Mode, agent.ModeDefault)
	is.Equal(joined(m2.Requests()[0].ToolNames()), "search,update,close_ticket")
	is.Equal(m2.Requests()[0].Options.Instructions, "Be brief.")
	r := results(res2.New)
	is.True(strings.Contains(string(r["3"].Result), "approved"))
	is.Equal(string(r["4"].Result), `{"done":true}`)
	is.Equal(res2.Text(), "updated")
}

func TestPlanRejected(t *testing.T) {
	for _, tt := range []struct{ reason, want string }{
		{"Too much.", "The plan was not approved: Too much. Stay in plan mode"},
		{"call the customer first", "The plan was not approved: call the customer first. Stay in plan mode"},
		{"Why close it?", "The plan was not approved: Why close it? Stay in plan mode"},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			is := is.New(t)
			var runs atomic.Int32
			m := script(call(tc("1", agent.ExitPlanModeTool, `{"plan":"delete everything"}`)))
			h := host(m, agent.Config{}, planTools(&runs)...)
			res, err := h.Run(context.Background(), agent.Text("x"), agent.Mode(agent.ModePlan))
			is.NoErr(err)

			m2 := script(say("revised"))
			res2, err := host(m2, agent.Config{}, planTools(&runs)...).Run(context.Background(),
				agent.Messages(res.Messages), agent.Mode(res.Mode), agent.Reject(res.Pending[0].ID, tt.reason))
			is.NoErr(err)
			is.Equal(res2.Mode, agent.ModePlan)
			is.Equal(joined(m2.Requests()[0].ToolNames()), "search,exit_plan_mode")
			is.True(strings.Contains(lastResults(m2)["1"].Error, tt.want)) // the reason reads as a sentence
		})
	}
}

func TestPlanApprovedByRuleSwitchesWithinTheRun(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(
		call(tc("1", agent.ExitPlanModeTool, `{"plan":"close it"}`)),
		call(tc("2", "close_ticket", `{"number":1}`)),
		say("closed"),
	)
	h := host(m, agent.Config{Rules: []agent.Rule{agent.AllowTool(agent.ExitPlanModeID)}}, planTools(&runs)...)
	res, err := h.Run(context.Background(), agent.Text("x"), agent.Mode(agent.ModePlan))
	is.NoErr(err)
	is.Equal(joined(m.Requests()[0].ToolNames()), "search,exit_plan_mode")
	is.Equal(joined(m.Requests()[1].ToolNames()), "search,update,close_ticket")
	is.Equal(res.Mode, agent.ModeDefault)
	// close_ticket still needs its own approval.
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].Call.Name, "close_ticket")
	is.Equal(runs.Load(), int32(0))
}

func TestExitPlanModeOutsidePlanMode(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(call(tc("1", agent.ExitPlanModeTool, `{"plan":"x"}`)), say("ok"))
	res, err := host(m, agent.Config{}, planTools(&runs)...).Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 0)
	is.True(strings.HasPrefix(lastResults(m)["1"].Error, `unknown tool "exit_plan_mode"`))
	_ = chat.RoleTool
}
