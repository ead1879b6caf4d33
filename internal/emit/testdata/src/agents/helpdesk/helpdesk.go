// Package helpdesk is a toolset in a package of its own, used by the agents of its parent fixture.
package helpdesk

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

// Notes keeps notes on tickets.
type Notes struct {
	toolset.Toolset
	notes map[int][]string
}

// Declare declares the tools.
func (n *Notes) Declare() {
	n.AddTool(n.AddNote).WithName("add_ticket_note")
	n.AddTool(n.ListNotes).ReadOnly()
	n.AddTool(n.DeleteNotes).RequiresApproval()
}

// NoteInput is a note on a ticket.
type NoteInput struct {
	// The ticket's number.
	Ticket int `json:"ticket" jsonschema:"minimum=1"`
	// The note's text.
	Text string `json:"text"`
}

// TicketInput names a ticket.
type TicketInput struct {
	// The ticket's number.
	Ticket int `json:"ticket" jsonschema:"minimum=1"`
}

// AddNote adds a note to a ticket.
func (n *Notes) AddNote(_ context.Context, in NoteInput) error {
	if n.notes == nil {
		n.notes = map[int][]string{}
	}
	n.notes[in.Ticket] = append(n.notes[in.Ticket], in.Text)
	return nil
}

// ListNotes lists a ticket's notes.
func (n *Notes) ListNotes(_ context.Context, in TicketInput) []string {
	return n.notes[in.Ticket]
}

// DeleteNotes deletes a ticket's notes.
func (n *Notes) DeleteNotes(_ context.Context, in TicketInput) {
	delete(n.notes, in.Ticket)
}
