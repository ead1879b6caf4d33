// Package foreign has a file by the generator's name that the generator did not write. // want package:`tools example\.com/gen/foreign\.Tickets\{get\}`
package foreign

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets reads tickets.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() { t.AddTool(t.Get) }

// Get reads a ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }
