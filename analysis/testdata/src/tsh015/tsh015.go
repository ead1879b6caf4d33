// Package tsh015 splits tool chains over statements. // want package:`tools example\.com/tsh015\.Tickets\{described, one_statement\}`
package tsh015

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

var description = "Reads a ticket."

// Tickets splits chains.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	b := t.AddTool(t.Stored) // want `TSH015: write each tool as one statement`
	b.ReadOnly()

	var c = t.AddTool(t.Declared) // want `TSH015: write each tool as one statement`
	c.RequiresApproval()

	t.AddTool(t.Described).WithDescription(description) // want `TSH015: WithDescription takes a string constant`

	t.AddTool(t.OneStatement).
		ReadOnly().
		WithDescription("Reads a ticket, in one statement over several lines.")
}

// Stored keeps its builder in a variable.
func (t *Tickets) Stored(ctx context.Context, in Input) error { return nil }

// Declared keeps its builder in a declared variable.
func (t *Tickets) Declared(ctx context.Context, in Input) error { return nil }

// Described takes its description from a variable.
func (t *Tickets) Described(ctx context.Context, in Input) error { return nil }

// OneStatement is one chain.
func (t *Tickets) OneStatement(ctx context.Context, in Input) error { return nil }
