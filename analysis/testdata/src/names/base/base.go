// Package base declares toolsets that other packages import. // want package:`tools example\.com/names/base\.Tickets\{search_tickets, get_ticket\} example\.com/names/base\.Notes\{add_note, lookup\}`
package base

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

// Tickets reads tickets.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.SearchTickets)
	t.AddTool(t.Get).WithName("get_ticket")
}

// SearchTickets searches tickets.
func (t *Tickets) SearchTickets(ctx context.Context, in Input) error { return nil }

// Get reads one ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }

// Notes writes notes.
type Notes struct{ toolset.Toolset }

func (n *Notes) Declare() {
	n.AddTool(n.AddNote)
	n.AddTool(Lookup)
}

// Lookup looks a note up; it is a package-level function, which other packages may offer too.
func Lookup(ctx context.Context, in Input) error { return nil }

// AddNote adds a note.
func (n *Notes) AddNote(ctx context.Context, in Input) error { return nil }
