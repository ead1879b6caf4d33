package tickets

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// TicketClient reaches a ticket system. Tests and the example use [MemoryClient]; a service would call its
// help desk's API.
type TicketClient interface {
	// Search returns the tickets whose title contains every word of query, newest first, at most limit of them.
	Search(ctx context.Context, query string, includeClosed bool, limit int) ([]Ticket, error)
	// Get returns the ticket with this number, and false if there is none.
	Get(ctx context.Context, number int) (Ticket, bool, error)
	// Close closes a ticket, giving the customer reason.
	Close(ctx context.Context, number int, reason string) error
}

// MemoryClient is a TicketClient that keeps tickets in memory. It is safe for concurrent use.
type MemoryClient struct {
	mu      sync.Mutex
	tickets map[int]Ticket
}

// NewMemoryClient returns a client holding copies of these tickets.
func NewMemoryClient(tickets ...Ticket) *MemoryClient {
	c := &MemoryClient{tickets: make(map[int]Ticket, len(tickets))}
	for _, tk := range tickets {
		tk.Tags = slices.Clone(tk.Tags)
		c.tickets[tk.Number] = tk
	}
	return c
}

// Search implements TicketClient.
func (c *MemoryClient) Search(ctx context.Context, query string, includeClosed bool, limit int) ([]Ticket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(query))
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []Ticket{} // an empty result is [], not null
	for _, tk := range c.tickets {
		if tk.Status == StatusClosed && !includeClosed {
			continue
		}
		title := strings.ToLower(tk.Title)
		if !all(words, func(w string) bool { return strings.Contains(title, w) }) {
			continue
		}
		tk.Tags = slices.Clone(tk.Tags)
		out = append(out, tk)
	}
	slices.SortFunc(out, func(a, b Ticket) int {
		return cmp.Or(b.Opened.Compare(a.Opened), cmp.Compare(b.Number, a.Number))
	})
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Get implements TicketClient.
func (c *MemoryClient) Get(ctx context.Context, number int) (Ticket, bool, error) {
	if err := ctx.Err(); err != nil {
		return Ticket{}, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tk, ok := c.tickets[number]
	tk.Tags = slices.Clone(tk.Tags)
	return tk, ok, nil
}

// Close implements TicketClient.
func (c *MemoryClient) Close(ctx context.Context, number int, reason string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tk, ok := c.tickets[number]
	switch {
	case !ok:
		return fmt.Errorf("no ticket %d exists: search for it first", number)
	case tk.Status == StatusClosed:
		return fmt.Errorf("ticket %d is already closed", number)
	}
	tk.Status, tk.Resolution = StatusClosed, reason
	c.tickets[number] = tk
	return nil
}

func all(words []string, ok func(string) bool) bool {
	for _, w := range words {
		if !ok(w) {
			return false
		}
	}
	return true
}
