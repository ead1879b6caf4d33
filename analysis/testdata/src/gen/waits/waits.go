// Package waits has no generated file, but also an error the generator stops at: TSH010 waits for it. // want package:`tools example\.com/gen/waits\.Tickets\{get\}`
package waits

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets has an error and no generated code.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Get)
	t.AddTool(t.Close).WithName("Close") // want `TSH008: tool name "Close" is not lower_snake_case`
}

// Get reads a ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }

// Close closes a ticket.
func (t *Tickets) Close(ctx context.Context, in Input) error { return nil }
