// Package agents declares agents over a toolset of its own and one of another package.
package agents

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents/helpdesk"
	"github.com/typeshift-go/typeshift/toolset"
)

// Desk holds the tools of a help desk.
type Desk struct {
	toolset.Toolset
}

// Declare declares the tools.
func (d *Desk) Declare() {
	d.AddTool(d.Search).ReadOnly().WithSettings(SearchSettings{Limit: 10})
	d.AddTool(d.Get).ReadOnly()
	d.AddTool(d.Close).RequiresApproval()
}

// SearchInput is a search.
type SearchInput struct {
	// Words to look for.
	Query string `json:"query"`
}

// SearchSettings bound a search.
type SearchSettings struct {
	Limit int `json:"limit" typeshift:"configurable" jsonschema:"minimum=1,maximum=50"`
}

// NumberInput names a ticket.
type NumberInput struct {
	// The ticket's number.
	Number int `json:"number" jsonschema:"minimum=1"`
}

// Search searches tickets.
func (d *Desk) Search(_ context.Context, in SearchInput, s SearchSettings) []string {
	return []string{fmt.Sprintf("%s (limit %d)", in.Query, s.Limit)}
}

// Get reads a ticket.
func (d *Desk) Get(_ context.Context, in NumberInput) string {
	return fmt.Sprintf("ticket %d", in.Number)
}

// Close closes a ticket.
func (d *Desk) Close(_ context.Context, in NumberInput) string {
	return fmt.Sprintf("closed %d", in.Number)
}

// Support answers customers.
type Support struct{ agent.Agent }

// Declare describes the agent.
func (a *Support) Declare() {
	a.WithInstructions("You help customers.")
	a.WithModel("test", "model-1").Configurable()
	a.WithTemperature(0.2).Configurable()
	a.WithSeed(7)
	a.WithMaxIterations(10)
	agent.Use[*Desk](a).Exclude((*Desk).Close)
	agent.Use[*helpdesk.Notes](a).Include((*helpdesk.Notes).AddNote, (*helpdesk.Notes).ListNotes)
}

// Triage sorts new tickets; it cannot search.
type Triage struct {
	agent.Agent
}

// Declare describes the agent.
func (a *Triage) Declare() {
	a.WithName("triage")
	a.WithStop("END").Configurable()
	agent.Use[*Desk](a).Include((*Desk).Get, (*Desk).Close)
}

// Frontline answers first and escalates what it cannot answer with a tool of its own.
type Frontline struct {
	agent.Agent
	// Escalated records the reasons given, for tests.
	Escalated []string
}

// Declare describes the agent.
func (a *Frontline) Declare() {
	a.WithInstructions("Answer, or escalate.")
	agent.Use[*Desk](a).Include((*Desk).Get)
	a.AddTool(a.Escalate)
	a.AddTool(a.Status).ReadOnly().WithName("desk_status")
}

// EscalateInput says why a ticket goes to a person.
type EscalateInput struct {
	// The ticket's number.
	Number int `json:"number" jsonschema:"minimum=1"`
	// Why the agent cannot answer.
	Reason string `json:"reason"`
}

// Escalate hands a ticket to a person.
func (a *Frontline) Escalate(_ context.Context, in EscalateInput) (string, error) {
	a.Escalated = append(a.Escalated, in.Reason)
	return fmt.Sprintf("ticket %d escalated", in.Number), nil
}

// Status tells whether the desk is staffed.
func (a *Frontline) Status(context.Context) string { return "staffed" }
