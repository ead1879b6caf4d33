// Package tsh014 calls AddTool where the generator cannot read it. // want package:`tools example\.com/tsh014\.Tickets\{direct, chained\}`
package tsh014

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string `json:"id"`
}

// Tickets hides some chains.
type Tickets struct {
	toolset.Toolset
	Admin bool
}

func (t *Tickets) Declare() {
	for range 2 {
		t.AddTool(t.InLoop) // want `TSH014: call AddTool directly in Declare`
	}
	if t.Admin {
		t.AddTool(t.InCondition) // want `TSH014: call AddTool directly in Declare`
	}
	func() {
		t.AddTool(t.InClosure) // want `TSH014: call AddTool directly in Declare`
	}()
	t.helper()

	t.AddTool(t.Direct)
	t.AddTool(t.Chained).ReadOnly().RequiresApproval()
}

func (t *Tickets) helper() {
	t.AddTool(t.InHelper) // want `TSH014: AddTool must be called directly in the toolset's Declare method, not in helper`
}

// Missing embeds toolset.Toolset but declares nothing.
type Missing struct{ toolset.Toolset } // want `TSH014: toolset Missing has no Declare method`

// InLoop is registered in a loop.
func (t *Tickets) InLoop(ctx context.Context, in Input) error { return nil }

// InCondition is registered in a condition.
func (t *Tickets) InCondition(ctx context.Context, in Input) error { return nil }

// InClosure is registered in a closure.
func (t *Tickets) InClosure(ctx context.Context, in Input) error { return nil }

// InHelper is registered in a helper.
func (t *Tickets) InHelper(ctx context.Context, in Input) error { return nil }

// Direct is registered as it should be.
func (t *Tickets) Direct(ctx context.Context, in Input) error { return nil }

// Chained is registered with a longer chain.
func (t *Tickets) Chained(ctx context.Context, in Input) error { return nil }

type ByValue struct{ toolset.Toolset } // want `TSH014: toolset ByValue declares Declare on a value receiver, so its AddTool chains would register on a copy: declare it as func \(x \*ByValue\) Declare\(\)`

func (b ByValue) Declare() {}

type WithArgs struct{ toolset.Toolset } // want `TSH014: toolset WithArgs's Declare takes parameters or returns results: declare it as func \(x \*WithArgs\) Declare\(\)`

func (w *WithArgs) Declare(n int) {}
