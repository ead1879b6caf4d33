// Package tsh003 gives AddTool what the generated code cannot call directly. // want package:`tools example\.com/tsh003\.Tools\{find, lookup\}`
package tsh003

import "context"

import "github.com/typeshift-go/typeshift/toolset"

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

// Tools shows bad and good AddTool arguments.
type Tools struct {
	toolset.Toolset
	fn func(context.Context, Input) (string, error)
}

var search = func(ctx context.Context, in Input) (string, error) { return in.Query, nil }

func makeTool() func(context.Context, Input) (string, error) { return search }

func (t *Tools) Declare() {
	t.AddTool(search)                                                                 // want `TSH003: AddTool takes a method value`
	t.AddTool(t.fn)                                                                   // want `TSH003: AddTool takes a method value`
	t.AddTool(makeTool())                                                             // want `TSH003: AddTool takes a method value`
	t.AddTool(func(ctx context.Context, in Input) (string, error) { return "", nil }) // want `TSH003: AddTool takes a method value`

	t.AddTool(t.Find)
	t.AddTool(Lookup)
}

// Find finds things by a query.
func (t *Tools) Find(ctx context.Context, in Input) (string, error) { return in.Query, nil }

// Lookup looks things up by a query.
func Lookup(ctx context.Context, in Input) (string, error) { return in.Query, nil }
