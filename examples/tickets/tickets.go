// Package tickets is the toolset of the toolsets guide, in Go: tools that search a customer's support tickets,
// read one, and close one once a person approves.
//
// The tools are methods of [Tickets]; its Declare method describes them, and `go generate` writes
// typeshift_gen.go, which gives each tool its JSON schema and its typed decoder and makes *Tickets a
// toolset.Source.
package tickets

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/toolset"
)

// Tickets holds the tools for the customer's support tickets.
type Tickets struct {
	toolset.Toolset
	// Client reaches the ticket system. Whoever builds the toolset sets it.
	Client TicketClient
}

// Declare describes the tools. The generator reads these chains from the source; at run time they only record
// the default settings.
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
}

// SearchInput is what the model sends to search_tickets.
type SearchInput struct {
	// Words the ticket's title contains; empty for every ticket.
	Query string `json:"query"`
	// Only tickets in this state. Leave it out for tickets in any state the settings allow.
	Status *Status `json:"status,omitempty"`
}

// SearchSettings are the settings of search_tickets, which the model never sees. A tenant may store its own
// limit and whether closed tickets count.
type SearchSettings struct {
	// IncludeClosed lets the search find closed tickets.
	IncludeClosed bool `json:"include_closed" typeshift:"configurable"`
	// Limit is the most tickets one search returns.
	Limit int `json:"limit" typeshift:"configurable" jsonschema:"minimum=1,maximum=100"`
}

// SearchTickets searches the customer's support tickets, newest first.
func (t *Tickets) SearchTickets(ctx context.Context, in SearchInput, s SearchSettings) ([]Ticket, error) {
	found, err := t.Client.Search(ctx, in.Query, s.IncludeClosed, s.Limit)
	if err != nil {
		return nil, err
	}
	if in.Status == nil {
		return found, nil
	}
	out := found[:0:0]
	for _, tk := range found {
		if tk.Status == *in.Status {
			out = append(out, tk)
		}
	}
	return out, nil
}

// GetInput is what the model sends to get_ticket.
type GetInput struct {
	// The ticket's number.
	Number int `json:"number" jsonschema:"minimum=1"`
}

// GetTicket reads one ticket.
func (t *Tickets) GetTicket(ctx context.Context, in GetInput) (Ticket, error) {
	tk, ok, err := t.Client.Get(ctx, in.Number)
	if err != nil {
		return Ticket{}, err
	}
	if !ok {
		// The message goes to the model: say what to do next.
		return Ticket{}, fmt.Errorf("no ticket %d exists: search for it first", in.Number)
	}
	return tk, nil
}

// CloseInput is what the model sends to close_ticket.
type CloseInput struct {
	// The ticket's number.
	Number int `json:"number" jsonschema:"minimum=1"`
	// Why it is closed, as the customer will read it.
	Reason string `json:"reason" jsonschema:"minLength=1,maxLength=500"`
}

// CloseTicket closes a ticket for good.
func (t *Tickets) CloseTicket(ctx context.Context, in CloseInput) error {
	return t.Client.Close(ctx, in.Number, in.Reason)
}
