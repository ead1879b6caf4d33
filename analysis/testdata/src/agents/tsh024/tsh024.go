// Package tsh024 picks methods that are not tools. // want package:`tools example\.com/agents/tsh024\.Notes\{add_note\} example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
package tsh024

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"

	"example.com/agents/tickets"
)

// Input names a note.
type Input struct {
	// Text is the note.
	Text string `json:"text"`
}

// Notes is a toolset of this package; Count is a method but not a tool.
type Notes struct{ toolset.Toolset }

func (n *Notes) Declare() { n.AddTool(n.AddNote) }

// AddNote adds a note.
func (n *Notes) AddNote(ctx context.Context, in Input) error { return nil }

// Count counts the notes; Declare does not add it.
func (n *Notes) Count() int { return 0 }

func helper(*Notes) {}

// Support picks what is not a tool.
type Support struct{ agent.Agent }

func (a *Support) Declare() {
	agent.Use[*Notes](a).Include((*Notes).Count) // want `TSH024: Count is not a tool of \*Notes`
	agent.Use[*Notes](a).Exclude(helper)         // want `TSH024: Exclude takes method expressions of \*Notes`
}

// Clean picks tools, of this package and of another: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	agent.Use[*Notes](a).Include((*Notes).AddNote)
	agent.Use[*tickets.Tickets](a).Include((*tickets.Tickets).SearchTickets).Exclude((*tickets.Tickets).CloseTicket)
}
