// Package tickets is the toolset of the guide: search, get and close support tickets.
package tickets

import (
	"context"
	"fmt"
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

	t.AddTool(t.CloseTicket).
		RequiresApproval()

	t.AddTool(t.StreamTickets).WithName("list_tickets").ReadOnly()

	t.AddTool(Ping)
}

// Status is where a ticket stands.
//
//typeshift:enum
type Status string

const (
	Open    Status = "open"
	Pending Status = "pending"
	Closed  Status = "closed"
)

// Ticket is one support ticket.
type Ticket struct {
	Number  int       `json:"number"`
	Title   string    `json:"title"`
	Status  Status    `json:"status"`
	Created time.Time `json:"created"`
	Tags    []string  `json:"tags,omitempty"`
}

// SearchInput is what search_tickets takes.
type SearchInput struct {
	// Words the ticket's title contains.
	Query string `json:"query" jsonschema:"minLength=1"`
	// Only tickets in these states.
	Statuses []Status `json:"statuses,omitempty" jsonschema:"maxItems=3"`
	// Page is the page of results.
	Page int `json:"page,omitempty" jsonschema:"minimum=1,default=1"`
}

// SearchSettings are the settings of search_tickets.
type SearchSettings struct {
	IncludeClosed bool `json:"include_closed" typeshift:"configurable"`
	Limit         int  `json:"limit" typeshift:"configurable" jsonschema:"minimum=1,maximum=100"`
}

// SearchTickets searches the customer's support tickets, newest first.
func (t *Tickets) SearchTickets(ctx context.Context, in SearchInput, s SearchSettings) ([]Ticket, error) {
	var out []Ticket
	for n := 1; n <= len(t.Store) && len(out) < s.Limit; n++ {
		tk, ok := t.Store[n]
		if !ok || (tk.Status == Closed && !s.IncludeClosed) {
			continue
		}
		out = append(out, tk)
	}
	return out, nil
}

// NumberInput names one ticket.
type NumberInput struct {
	// The ticket's number.
	Number int `json:"number" jsonschema:"minimum=1"`
}

func (t *Tickets) GetTicket(ctx context.Context, in NumberInput) (*Ticket, error) {
	tk, ok := t.Store[in.Number]
	if !ok {
		return nil, fmt.Errorf("no ticket %d exists: search for it first", in.Number)
	}
	return &tk, nil
}

// CloseInput says which ticket to close and why.
type CloseInput struct {
	Number int `json:"number"`
	// Why it is closed, as the customer will read it.
	Reason string `json:"reason" jsonschema:"maxLength=200"`
}

// CloseTicket closes a ticket for good.
func (t *Tickets) CloseTicket(ctx context.Context, in CloseInput, call *toolset.Call) error {
	tk, ok := t.Store[in.Number]
	if !ok {
		return fmt.Errorf("no ticket %d exists", in.Number)
	}
	tk.Status = Closed
	t.Store[in.Number] = tk
	return nil
}

// StreamTickets lists every ticket.
func (t *Tickets) StreamTickets() iter.Seq2[Ticket, error] {
	return func(yield func(Ticket, error) bool) {
		for n := 1; n <= len(t.Store); n++ {
			if !yield(t.Store[n], nil) {
				return
			}
		}
	}
}

// Ping answers pong.
func Ping() string { return "pong" }
