package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// The modes a run can be in.
const (
	// ModeDefault offers every tool and asks before calls that need approval.
	ModeDefault = ""
	// ModePlan offers only read-only tools and exit_plan_mode, whose approval switches the run to ModeDefault.
	ModePlan = "plan"
	// ModeAuto approves every call that needs approval, unless a rule denies it.
	ModeAuto = "auto"
)

// ExitPlanModeTool is the name of the tool plan mode adds; ExitPlanModeID is its identity, for rules.
const (
	ExitPlanModeTool = "exit_plan_mode"
	ExitPlanModeID   = "typeshift.exit_plan_mode"
)

// PlanInstructions are appended to the instructions in plan mode.
const PlanInstructions = "You are in plan mode. Only read-only tools are available: use them to investigate, " +
	"change nothing, and work out a plan. When the plan is ready, call " + ExitPlanModeTool + " with the plan " +
	"written out step by step. The user reviews it; once approved, all tools become available and you carry it out."

// planApprovedText is the result of an approved exit_plan_mode call.
var planApprovedText = json.RawMessage(`{"approved":true,"message":"The plan was approved. All tools are available now: carry out the plan."}`)

func newExitPlanTool() *toolset.Tool {
	return &toolset.Tool{
		Name:        ExitPlanModeTool,
		Description: "Presents your plan for approval and, once it is approved, leaves plan mode so that you can carry it out.",
		Schema: json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string",` +
			`"description":"The plan, step by step, in Markdown."}},"required":["plan"],"additionalProperties":false}`),
		RequiresApproval: true,
		ID:               ExitPlanModeID,
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return nil, errors.New("exit_plan_mode runs only through approval")
		},
		State: &toolset.State{},
	}
}

// modeOptions narrows the options to what the run's mode offers, exitPlan among them in plan mode. Outside plan mode they pass unchanged.
func modeOptions(mode string, exitPlan *toolset.Tool, opts *chat.Options) *chat.Options {
	if mode != ModePlan {
		return opts
	}
	o := opts.Clone()
	o.Tools = o.Tools[:0]
	for _, t := range opts.Tools {
		if t.ReadOnly {
			o.Tools = append(o.Tools, t)
		}
	}
	o.Tools = append(o.Tools, exitPlan)
	if o.Instructions != "" {
		o.Instructions += "\n\n"
	}
	o.Instructions += PlanInstructions
	return o
}
