// Package deep imports base only through other, and still may not reuse its tool names. // want package:`tools Deep\{get_ticket, search_deep\}`
package deep

import (
	"context"

	"example.com/names/other"
	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the thing to get.
	ID string `json:"id"`
}

// Deep clashes with a package it imports indirectly.
type Deep struct {
	toolset.Toolset
	Other *other.Other
}

func (d *Deep) Declare() {
	d.AddTool(d.GetTicket) // want `TSH007: tool name "get_ticket" of Deep.GetTicket is already used by Tickets.Get in example.com/names/base`
	d.AddTool(d.SearchDeep)
}

// GetTicket clashes with base's get_ticket.
func (d *Deep) GetTicket(ctx context.Context, in Input) error { return nil }

// SearchDeep has a name of its own.
func (d *Deep) SearchDeep(ctx context.Context, in Input) error { return nil }
