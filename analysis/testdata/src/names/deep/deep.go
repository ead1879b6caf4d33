// Package deep imports base only through relay, which declares no toolsets, and still may not reuse its tool names. // want package:`tools example\.com/names/deep\.Deep\{get_ticket, search_deep\} example\.com/names/base\.Notes\{add_note, lookup\} example\.com/names/base\.Tickets\{search_tickets, get_ticket\}`
package deep

import (
	"context"

	"example.com/names/relay"
	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the thing to get.
	ID string `json:"id"`
}

// Deep clashes with a package it imports indirectly.
type Deep struct {
	toolset.Toolset
	Query relay.Query
}

func (d *Deep) Declare() {
	d.AddTool(d.GetTicket) // want `TSH007: tool name "get_ticket" of Deep.GetTicket is already used by Tickets.Get in example.com/names/base`
	d.AddTool(d.SearchDeep)
}

// GetTicket clashes with base's get_ticket.
func (d *Deep) GetTicket(ctx context.Context, in Input) error { return nil }

// SearchDeep has a name of its own.
func (d *Deep) SearchDeep(ctx context.Context, in Input) error { return nil }
