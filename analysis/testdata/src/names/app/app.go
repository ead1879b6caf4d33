// Package app imports base through other and takes some of its tool names. // want package:`tools example\.com/names/app\.App\{search_tickets, add_note, note, search_orders_again, lookup\} example\.com/names/base\.Notes\{add_note, lookup\} example\.com/names/base\.Tickets\{search_tickets, get_ticket\} example\.com/names/other\.Other\{search_orders\}`
package app

import (
	"context"

	"example.com/names/base"
	"example.com/names/other"
	"github.com/typeshift-go/typeshift/toolset"
)

// App reuses names its imports already use.
type App struct {
	toolset.Toolset
	Other *other.Other
}

func (a *App) Declare() {
	a.AddTool(a.SearchTickets)             // want `TSH007: tool name "search_tickets" of App.SearchTickets is already used by Tickets.SearchTickets in example.com/names/base`
	a.AddTool(a.Note).WithName("add_note") // want `TSH007: tool name "add_note" of App.Note is already used by Notes.AddNote in example.com/names/base`
	a.AddTool(a.AddNote).WithName("note")
	a.AddTool(a.SearchOrders).WithName("search_orders_again")
	a.AddTool(base.Lookup).WithDescription("Looks a note up.") // want `TSH007: tool name "lookup" of function base.Lookup of App is already used by Notes.Lookup in example.com/names/base`
}

// SearchTickets clashes with base.
func (a *App) SearchTickets(ctx context.Context, in base.Input) error { return nil }

// Note clashes with base through WithName.
func (a *App) Note(ctx context.Context, in base.Input) error { return nil }

// AddNote would clash by its method name, but WithName renames it.
func (a *App) AddNote(ctx context.Context, in base.Input) error { return nil }

// SearchOrders would clash with other, but WithName renames it.
func (a *App) SearchOrders(ctx context.Context, in base.Input) error { return nil }
