package toolset

import (
	"context"
	"errors"
)

// A WrapFunc transforms the tools a source offers for one turn. The slice is its own to change; the tools are
// shared, so change a tool by cloning it ([Tool.Clone]) and returning the clone.
type WrapFunc func(ctx context.Context, run *Run, tools []*Tool) ([]*Tool, error)

// Wrapped is a source that offers the tools of another as a function transforms them. Make one with [Wrap].
type Wrapped struct {
	src  Source
	fn   WrapFunc
	name string
}

// Wrap offers the tools of src as fn transforms them every turn: fn may change descriptions, add, drop or reorder
// tools, or replace each tool's Invoke to run code around every call of the toolset's tools (toolset-scoped
// middleware).
//
// Wrap is a function rather than a type to embed: in Go, a source with its own behaviour is any type with a Tools
// method, and one that wraps another calls the inner Tools itself. Wrap covers the common case in one call.
//
// A wrapped source hides where its tools came from: a conflict inside src is reported below the wrapper's name, and
// the tools fn returns are checked for names that appear twice.
func Wrap(src Source, fn WrapFunc) *Wrapped {
	return &Wrapped{src: src, fn: fn}
}

// WithName names w in error messages name(...) instead of Wrapped(...), as "Tagged(Tickets)" for a wrapper that
// tags descriptions. It returns w; call it before the source is first used.
func (w *Wrapped) WithName(name string) *Wrapped {
	w.name = name
	return w
}

// SourceName returns the source's name in error messages: the name given to [Wrapped.WithName] around the wrapped
// source's name, or "Wrapped(Tickets)".
func (w *Wrapped) SourceName() string {
	name := w.name
	if name == "" {
		name = "Wrapped"
	}
	return name + "(" + sourceName(w.src) + ")"
}

// Tools returns the wrapped source's tools for this turn, transformed.
func (w *Wrapped) Tools(ctx context.Context, run *Run) ([]*Tool, error) {
	name := w.SourceName()
	if w.src == nil {
		return nil, &pathError{path: name, err: errors.New("source is nil")}
	}
	tools, err := w.src.Tools(ctx, run)
	if err != nil {
		if _, ok := err.(*ConflictError); ok {
			return nil, err // kept as is, so that a Combine around w lists these conflicts with its own
		}
		return nil, &pathError{path: name, err: err}
	}
	if w.fn != nil {
		if tools, err = w.fn(ctx, run, tools); err != nil {
			return nil, &pathError{path: name, err: err}
		}
	}
	tr := trail{entries: make([]entry, len(tools))}
	for i, t := range tools {
		if t == nil {
			return nil, &pathError{path: name, err: errors.New("returned a nil tool")}
		}
		tr.entries[i] = entry{tool: t, path: name}
	}
	return tr.settle()
}
