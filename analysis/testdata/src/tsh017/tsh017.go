// Package tsh017 declares toolset types the generator cannot write tools for. // want package:`tools example\.com/tsh017\.Base\{get\}`
package tsh017

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the thing.
	ID string `json:"id"`
}

// Generic has type parameters.
type Generic[T any] struct { // want `TSH017: a toolset cannot have type parameters`
	toolset.Toolset
	Value T
}

func (g *Generic[T]) Declare() {}

// Base is a toolset that others might build on.
type Base struct{ toolset.Toolset }

func (b *Base) Declare() { b.AddTool(b.Get) }

// Get reads a thing.
func (b *Base) Get(ctx context.Context, in Input) error { return nil }

// Derived gets toolset.Toolset through Base.
type Derived struct {
	Base // want `TSH017: Derived gets toolset.Toolset through Base`
}

// Pointer embeds a pointer to toolset.Toolset.
type Pointer struct {
	*toolset.Toolset // want `TSH017: embed toolset.Toolset by value`
}

// Holder keeps a toolset in a named field, which is fine: it is not a toolset itself.
type Holder struct {
	Tools Base
}
