// Package other imports base and names its tools apart. // want package:`tools example\.com/names/other\.Other\{search_orders\} example\.com/names/base\.Notes\{add_note, lookup\} example\.com/names/base\.Tickets\{search_tickets, get_ticket\}`
package other

import (
	"context"

	"example.com/names/base"
	"github.com/typeshift-go/typeshift/toolset"
)

// Other has a tool of its own.
type Other struct {
	toolset.Toolset
	Tickets *base.Tickets
}

func (o *Other) Declare() {
	o.AddTool(o.SearchOrders)
}

// SearchOrders searches orders.
func (o *Other) SearchOrders(ctx context.Context, in base.Input) error { return nil }
