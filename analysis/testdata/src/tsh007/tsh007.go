// Package tsh007 declares tool names twice and takes reserved ones. // want package:`tools example\.com/tsh007\.Tickets\{search, lookup_ticket\} example\.com/tsh007\.Orders\{search_orders\}`
package tsh007

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

// Tickets has a search tool.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Search)
	t.AddTool(t.ExitPlanMode)                         // want `TSH007: the tool name "exit_plan_mode" is reserved`
	t.AddTool(t.Handoff).WithName("handoff_to_sales") // want `TSH007: the tool name "handoff_to_sales" is reserved`
	t.AddTool(t.Lookup).WithName("lookup_ticket")
}

// Orders also has a search tool.
type Orders struct{ toolset.Toolset }

func (o *Orders) Declare() {
	o.AddTool(o.Search)                         // want `TSH007: the tool name "search" is already used by Tickets.Search`
	o.AddTool(o.Find).WithName("lookup_ticket") // want `TSH007: the tool name "lookup_ticket" is already used by Tickets.Lookup`
	o.AddTool(o.Search2).WithName("search_orders")
}

// Search searches tickets.
func (t *Tickets) Search(ctx context.Context, in Input) error { return nil }

// ExitPlanMode would shadow the runtime's tool.
func (t *Tickets) ExitPlanMode(ctx context.Context) error { return nil }

// Handoff would shadow a handoff tool.
func (t *Tickets) Handoff(ctx context.Context) error { return nil }

// Lookup looks a ticket up.
func (t *Tickets) Lookup(ctx context.Context, in Input) error { return nil }

// Search searches orders.
func (o *Orders) Search(ctx context.Context, in Input) error { return nil }

// Find finds an order.
func (o *Orders) Find(ctx context.Context, in Input) error { return nil }

// Search2 searches orders under a name of its own.
func (o *Orders) Search2(ctx context.Context, in Input) error { return nil }
