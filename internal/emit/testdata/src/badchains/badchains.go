// Package badchains declares toolsets whose chains the generator cannot read; each is reported.
package badchains

import "github.com/typeshift-go/typeshift/toolset"

// A has one problem per chain.
type A struct {
	toolset.Toolset
	other *A
}

var name = "dynamic"

func (a *A) Declare() {
	a.AddTool(func() string { return "" })
	a.AddTool(a.other.Ping)
	for range 2 {
		a.AddTool(a.Ping)
	}
	if name != "" {
		a.AddTool(a.Ping)
	}
	func() {
		a.AddTool(a.Ping)
	}()
	b := a.AddTool(a.Ping)
	b.ReadOnly()
	a.AddTool(a.Ping).WithName("Bad-Name")
	a.AddTool(a.Ping).WithName(name)
	a.AddTool(a.Ping)
	a.AddTool(a.Pong).WithName("ping")
	a.AddTool(a.Pong).WithName("exit_plan_mode")
	a.AddTool(a.HandoffToX)
	a.AddTool(a.Undocumented)
	a.AddTool(a.Ping).WithDescription(name)
	a.more()
}

func (a *A) more() {
	a.AddTool(a.Ping)
}

// Ping answers.
func (a *A) Ping() string { return "pong" }

// Pong answers too.
func (a *A) Pong() string { return "ping" }

// HandoffToX has a reserved name.
func (a *A) HandoffToX() {}

func (a *A) Undocumented() {}

// G has a type parameter.
type G[T any] struct {
	toolset.Toolset
}

func (g *G[T]) Declare() {}

// Inner is a toolset.
type Inner struct {
	toolset.Toolset
}

func (i *Inner) Declare() {}

// Outer gets toolset.Toolset through Inner.
type Outer struct {
	Inner
}

// Ptr embeds a pointer.
type Ptr struct {
	*toolset.Toolset
}

// NoDeclare has no Declare method.
type NoDeclare struct {
	toolset.Toolset
}
