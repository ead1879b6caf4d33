// Package tickets declares a toolset that the agent packages use. // want package:`tools example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
//
// Its generated file is out of date: it was written when Reopen was still a tool.
package tickets

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

// Input names a ticket.
type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets manages tickets.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.SearchTickets)
	t.AddTool(t.CloseTicket)
}

// SearchTickets finds tickets.
func (t *Tickets) SearchTickets(ctx context.Context, in Input) error { return nil }

// CloseTicket closes a ticket.
func (t *Tickets) CloseTicket(ctx context.Context, in Input) error { return nil }

// Reopen was a tool once; Declare no longer adds it.
func (t *Tickets) Reopen(ctx context.Context, in Input) error { return nil }
