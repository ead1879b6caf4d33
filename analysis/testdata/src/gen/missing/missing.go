// Package missing declares a toolset but has no generated file. // want package:`tools example\.com/gen/missing\.Tickets\{get\}`
package missing

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets has no generated code.
type Tickets struct{ toolset.Toolset } // want `TSH010: typeshift_gen.go is missing: run go tool typeshift generate \./\.\.\. at the module's root`

func (t *Tickets) Declare() { t.AddTool(t.Get) }

// Get reads a ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }
