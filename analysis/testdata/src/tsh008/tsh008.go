// Package tsh008 names tools in forms other than lower_snake_case. // want package:`tools example\.com/tsh008\.Tickets\{search_tickets_v2, list_http_errors\}`
package tsh008

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

const badName = "Close-Ticket"

// Tickets names its tools.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.GetTicket).WithName("GetTicket")             // want `TSH008: tool name "GetTicket" is not lower_snake_case: use "get_ticket"`
	t.AddTool(t.Reopen).WithName("reopen ticket").ReadOnly() // want `TSH008: tool name "reopen ticket" is not lower_snake_case: use "reopen_ticket"`
	t.AddTool(t.Close).WithName(badName)                     // want `TSH008: tool name "Close-Ticket" is not lower_snake_case: use "close_ticket"`

	// Suggestions never clash with another tool's name, nor with each other.
	t.AddTool(t.Find).WithName("Search-Tickets-V2") // want `TSH008: tool name "Search-Tickets-V2" is not lower_snake_case: use "search_tickets_v2_2"`
	t.AddTool(t.Read).WithName("Get Ticket")        // want `TSH008: tool name "Get Ticket" is not lower_snake_case: use "get_ticket_2"`

	t.AddTool(t.Search).WithName("search_tickets_v2")
	t.AddTool(t.ListHTTPErrors)
}

// GetTicket reads a ticket.
func (t *Tickets) GetTicket(ctx context.Context, in Input) error { return nil }

// Reopen reopens a ticket.
func (t *Tickets) Reopen(ctx context.Context, in Input) error { return nil }

// Close closes a ticket.
func (t *Tickets) Close(ctx context.Context, in Input) error { return nil }

// Find finds a ticket.
func (t *Tickets) Find(ctx context.Context, in Input) error { return nil }

// Read reads a ticket.
func (t *Tickets) Read(ctx context.Context, in Input) error { return nil }

// Search searches tickets.
func (t *Tickets) Search(ctx context.Context, in Input) error { return nil }

// ListHTTPErrors lists the HTTP errors of a ticket's webhook.
func (t *Tickets) ListHTTPErrors(ctx context.Context, in Input) error { return nil }
