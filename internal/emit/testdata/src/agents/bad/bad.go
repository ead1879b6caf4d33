// Package bad declares agents the generator refuses.
package bad

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents/helpdesk"
	"github.com/typeshift-go/typeshift/toolset"
)

// Handmade is a source written by hand: not a toolset the generator knows.
type Handmade struct{}

// SourceName names it.
func (Handmade) SourceName() string { return "Handmade" }

// Tools returns none.
func (Handmade) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, nil }

// NotTool is a method of the helpdesk's toolset that is not a tool.
func helper(*helpdesk.Notes) {}

// UsesNoToolset uses a type that is not a toolset.
type UsesNoToolset struct{ agent.Agent }

// Declare describes the agent.
func (a *UsesNoToolset) Declare() {
	agent.Use[Handmade](a)
}

// PicksNoTool picks methods that are not tools.
type PicksNoTool struct{ agent.Agent }

// Declare describes the agent.
func (a *PicksNoTool) Declare() {
	agent.Use[*helpdesk.Notes](a).Exclude((*helpdesk.Notes).Declare, helper)
}

// SplitChain uses a toolset outside a chain statement.
type SplitChain struct{ agent.Agent }

// Declare describes the agent.
func (a *SplitChain) Declare() {
	a.WithName(name())
	u := agent.Use[*helpdesk.Notes](a)
	u.Include((*helpdesk.Notes).AddNote)
	if len(name()) > 3 {
		a.WithTemperature(0.3).Configurable()
	}
	useLater(a)
}

func name() string { return "split" }

func useLater(a *SplitChain) {
	agent.Use[*helpdesk.Notes](a)
}

// BadOwnTools adds tools of its own the generator cannot read.
type BadOwnTools struct{ agent.Agent }

// Declare describes the agent.
func (a *BadOwnTools) Declare() {
	agent.Use[*helpdesk.Notes](a)
	a.AddTool(a.Undocumented).WithName("exit_plan_mode")
	a.AddTool(a.Undocumented).WithName("Bad Name")
	a.AddTool(func(context.Context) string { return "" })
	b := a.AddTool(a.Undocumented)
	b.ReadOnly()
	for range 2 {
		a.AddTool(a.Undocumented)
	}
	a.AddTool(a.Undocumented)
	a.AddTool(a.Undocumented)
}

func (a *BadOwnTools) Undocumented(context.Context) string { return "" }

func addLater(a *BadOwnTools) { a.AddTool(a.Undocumented) }
