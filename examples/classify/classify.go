package main

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"errors"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/examples/tickets"
)

// Verdict is the triage agent's decision on a ticket.
type Verdict struct {
	// Decision is what happens to the ticket.
	Decision string `json:"decision" jsonschema:"enum=close,enum=answer,enum=escalate"`
	// Priority is how soon someone must look at it, from 1 (now) to 5.
	Priority int `json:"priority" jsonschema:"minimum=1,maximum=5"`
	// Reasons explain the decision, one sentence each.
	Reasons []string `json:"reasons" jsonschema:"minItems=1,maxItems=3"`
	// Assignee is the team that takes the ticket, when a person must.
	Assignee *string `json:"assignee,omitempty" jsonschema:"enum=hardware,enum=billing,enum=accounts"`
}

// Triage reads a ticket with the tickets toolset's read-only tool and decides what happens to it.
type Triage struct{ agent.Agent }

// Declare describes the agent: its instructions, the one tool it may call, and its answer type.
func (a *Triage) Declare() {
	a.WithInstructions("Read the ticket the user names with get_ticket, then decide what happens to it. " +
		"Escalate what needs a person, and name the team: hardware, billing or accounts.")
	a.WithModel("openai", "gpt-4.1-mini")
	agent.Use[*tickets.Tickets](a).Include((*tickets.Tickets).GetTicket)
	agent.Returns[Verdict](a)
	agent.ValidateAnswer(a, needsAssignee)
}

// needsAssignee refuses an escalation that names no team: the model reads the reason and answers again.
func needsAssignee(ctx context.Context, v Verdict) error {
	if v.Decision == "escalate" && v.Assignee == nil {
		return errors.New("an escalated ticket needs an assignee: name the team that takes it")
	}
	return nil
}
