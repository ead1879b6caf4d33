// Package clean declares a toolset the analyzer finds nothing wrong with. // want package:`tools example\.com/clean\.Tickets\{search_tickets, get_ticket, close_ticket, stream_open_tickets, ping\}`
package clean

import (
	"context"
	"iter"
	"time"

	"github.com/typeshift-go/typeshift/toolset"
)

// Tickets holds the tools for the customer's support tickets.
type Tickets struct {
	toolset.Toolset
	Store map[int]Ticket
}

func (t *Tickets) Declare() {
	t.WithDisplayName("Tickets")

	t.AddTool(t.SearchTickets).
		ReadOnly().
		WithSettings(SearchSettings{Limit: 20})

	t.AddTool(t.GetTicket).
		WithDescription("Reads one ticket by its number.").
		ReadOnly()

	t.AddTool(t.CloseTicket).RequiresApproval()
	t.AddTool(t.StreamTickets).WithName("stream_open_tickets")
	t.AddTool(Ping)
}

// SearchTickets searches the customer's support tickets, newest first.
func (t *Tickets) SearchTickets(ctx context.Context, in SearchInput, s SearchSettings) ([]Ticket, error) {
	return nil, nil
}

// GetTicket is described in Declare.
func (t *Tickets) GetTicket(ctx context.Context, in TicketRef) (Ticket, error) {
	return t.Store[in.Number], nil
}

// CloseTicket closes a ticket for good.
func (t *Tickets) CloseTicket(ctx context.Context, in TicketRef, call *toolset.Call) error {
	return nil
}

// StreamTickets lists the open tickets one by one.
func (t *Tickets) StreamTickets(ctx context.Context) iter.Seq2[Ticket, error] {
	return func(yield func(Ticket, error) bool) {}
}

// Ping says whether the ticket system answers.
func Ping(ctx context.Context) (bool, error) { return true, nil }

type SearchInput struct {
	// Words the ticket's title contains.
	Query string `json:"query"`
	// Status picks tickets by status.
	Status string `json:"status,omitempty" jsonschema:"enum=open,enum=closed"`
	Page   int    `json:"page,omitempty"`
}

type SearchSettings struct {
	IncludeClosed bool `json:"include_closed" typeshift:"configurable"`
	Limit         int  `json:"limit" typeshift:"configurable" jsonschema:"minimum=1,maximum=100"`
}

type TicketRef struct {
	// Number is the ticket's number, such as 4711.
	Number int `json:"number" jsonschema:"minimum=1"`
}

// Ticket is one support ticket.
type Ticket struct {
	Number  int       `json:"number"`
	Title   string    `json:"title"`
	Status  string    `json:"status"`
	Created time.Time `json:"created"`
	Tags    []string  `json:"tags,omitempty"`
}
