// Package stale declares a toolset whose generated file is out of date. // want package:`tools example\.com/gen/stale\.Tickets\{get\}`
package stale

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets has stale generated code.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() { t.AddTool(t.Get) }

// Get reads a ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }
