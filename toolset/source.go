package toolset

import "context"

// A Source yields the tools offered for one turn of a run. It is asked again every turn, so what it offers may
// depend on the run and on values in the context (a filter, for example, shows admin tools to admins only).
//
// A generated toolset is a Source. The slice a Source returns belongs to the caller, but the tools in it are
// shared: change a tool by cloning it ([Tool.Clone]).
type Source interface {
	Tools(ctx context.Context, run *Run) ([]*Tool, error)
}

// A Named source says what it is called in error messages, such as "Tickets" or `Prefixed("db", Tickets)`.
// Sources that do not implement it are called by their position.
type Named interface {
	SourceName() string
}

// SourceFunc adapts a function to a Source.
type SourceFunc func(ctx context.Context, run *Run) ([]*Tool, error)

// Tools calls f.
func (f SourceFunc) Tools(ctx context.Context, run *Run) ([]*Tool, error) { return f(ctx, run) }

// List is a Source that offers a fixed list of tools, such as tools built by hand.
type List []*Tool

// Tools returns a copy of the list.
func (l List) Tools(context.Context, *Run) ([]*Tool, error) {
	return append([]*Tool(nil), l...), nil
}
