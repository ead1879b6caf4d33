// Package answertest holds the agents with typed answers that package agent's tests run: a triage agent that
// answers a ticket with a Verdict, with no tools, and a desk agent that reads tickets with a tool before it
// answers. Nothing outside the tests uses it.
package answertest

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// Verdict is the decision on a support ticket.
type Verdict struct {
	// Decision is what happens to the ticket.
	Decision string `json:"decision" jsonschema:"enum=close,enum=answer,enum=escalate"`
	// Priority is how soon someone must look at it, from 1 (now) to 5.
	Priority int `json:"priority" jsonschema:"minimum=1,maximum=5"`
	// Reasons explain the decision, one sentence each.
	Reasons []string `json:"reasons" jsonschema:"minItems=1,maxItems=3"`
	// Assignee is who takes the ticket, when a person must.
	Assignee *string `json:"assignee,omitempty"`
}

// ErrNoAssignee is the validators' reason to refuse an escalated ticket without an assignee.
var ErrNoAssignee = errors.New("an escalated ticket needs an assignee")

// Triage decides what happens to a ticket, from its text alone.
type Triage struct {
	agent.Agent
	// Mode, Retries and Provider are set by the tests before NewHost; a run with Config.Providers asks
	// Provider's model "test-model".
	Mode     agent.AnswerMode
	Retries  int
	Provider string
}

// Declare describes the agent.
func (a *Triage) Declare() {
	a.WithInstructions("Decide what happens to the ticket.")
	a.WithModel(a.Provider, "test-model")
	a.WithAnswerMode(a.Mode)
	a.WithAnswerRetries(a.Retries)
	agent.Returns[Verdict](a)
	agent.ValidateAnswer(a, checkAssignee)
}

// Desk reads tickets with its tool before it decides.
type Desk struct {
	agent.Agent
	// Mode and Provider are set by the tests before NewHost.
	Mode     agent.AnswerMode
	Provider string
}

// Declare describes the agent.
func (a *Desk) Declare() {
	a.WithInstructions("Read the ticket, then decide what happens to it.")
	a.WithModel(a.Provider, "test-model")
	a.WithAnswerMode(a.Mode)
	agent.Use[*Tickets](a)
	agent.Returns[Verdict](a)
}

func checkAssignee(ctx context.Context, v Verdict) error {
	if v.Decision == "escalate" && v.Assignee == nil {
		return ErrNoAssignee
	}
	return nil
}

// Tickets reads support tickets.
type Tickets struct {
	toolset.Toolset
	// Texts holds the tickets by number.
	Texts map[int]string
}

// Declare registers the tools.
func (t *Tickets) Declare() {
	t.AddTool(t.GetTicket).ReadOnly()
}

// TicketInput names a ticket.
type TicketInput struct {
	// Number is the ticket's number.
	Number int `json:"number"`
}

// GetTicket returns a ticket's text.
func (t *Tickets) GetTicket(ctx context.Context, in TicketInput) (string, error) {
	text, ok := t.Texts[in.Number]
	if !ok {
		return "", fmt.Errorf("no ticket %d", in.Number)
	}
	return text, nil
}
