// Package tsh009 has a tool the model gets no description of. // want package:`tools example\.com/tsh009\.Tickets\{undocumented, documented, described\}`
package tsh009

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets describes some tools.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Undocumented) // want `TSH009: tool undocumented has no description`

	t.AddTool(t.Documented)
	t.AddTool(t.Described).WithDescription("Reads one ticket by its number.")
}

func (t *Tickets) Undocumented(ctx context.Context, in Input) error { return nil }

// Documented is described by this comment.
func (t *Tickets) Documented(ctx context.Context, in Input) error { return nil }

func (t *Tickets) Described(ctx context.Context, in Input) error { return nil }
