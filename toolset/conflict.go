package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// A Conflict is one tool name contributed by more than one source.
type Conflict struct {
	// Name is the name the sources contribute.
	Name string
	// Sources names every contributing source by its path through the composition, in declaration order, such as
	// `tools[0] Prefixed("db", Tickets)` or `tools[1] Combined(...)[0] Tickets`.
	Sources []string
}

// ConflictError reports tool names that more than one source contributes. It lists every conflict found in one
// turn, at every level of nesting, each with every contributing source, so one fix-and-rerun is enough.
type ConflictError struct {
	// Conflicts holds one entry per name offered more than once.
	Conflicts []Conflict
}

// Error lists the conflicts, one a line when there are several.
func (e *ConflictError) Error() string {
	var b strings.Builder
	if len(e.Conflicts) == 1 {
		b.WriteString("tool name conflict: ")
		writeConflict(&b, e.Conflicts[0])
		return b.String()
	}
	fmt.Fprintf(&b, "%d tool name conflicts:", len(e.Conflicts))
	for _, c := range e.Conflicts {
		b.WriteString("\n  - ")
		writeConflict(&b, c)
	}
	return b.String()
}

func writeConflict(b *strings.Builder, c Conflict) {
	fmt.Fprintf(b, "%q contributed by: %s", c.Name, strings.Join(c.Sources, ", "))
}

// An entry is one tool on its way through a composition, with the path of the source that contributed it.
type entry struct {
	tool *Tool
	// path describes the route from the source that was asked down to the source that made the tool, such as
	// `Prefixed("db", Tickets)`.
	path string
	// standalone marks a *Tool listed directly in a Combine: standalone tools may share a name (see Combine).
	standalone bool
}

// A trail is what a composing source yields to the source around it: its tools with their origins, not yet
// checked for conflicts, plus the conflicts found inside sources that hide their contents (such as a Wrap around
// a Combine). Checking only at the outermost source is what lets one error list the conflicts of every level.
type trail struct {
	entries   []entry
	conflicts []Conflict
	// hidden are the names, as the source would offer them, of tools a [Filter] inside it hid this turn. A [Prefix]
	// prefixes them too, so the names are those the model would have seen; a [Wrap] forgets them, since its
	// function may offer anything.
	hidden []string
}

// A tracer is a source of this package that can say where each of its tools came from.
type tracer interface {
	Source
	trace(ctx context.Context, run *Run) (trail, error)
}

// traceOf asks src for its tools with their origins. Sources that are not tracers are leaves: every tool they
// yield comes from them.
func traceOf(ctx context.Context, run *Run, src Source) (trail, error) {
	name := sourceName(src)
	if src == nil {
		return trail{}, &pathError{path: name, err: errors.New("source is nil")}
	}
	if t, ok := src.(tracer); ok {
		return t.trace(ctx, run)
	}
	tools, err := src.Tools(ctx, run)
	if err != nil {
		if pe, ok := err.(*pathError); ok && pe.path == name {
			return trail{}, err // a Wrap names itself already
		}
		return trail{}, &pathError{path: name, err: err}
	}
	es := make([]entry, len(tools))
	for i, t := range tools {
		if t == nil {
			return trail{}, &pathError{path: name, err: errors.New("yielded a nil tool")}
		}
		es[i] = entry{tool: t, path: name}
	}
	return trail{entries: es}, nil
}

// repath puts prefix before the path of every entry and conflict source, as a Combine names the index of a
// source. It changes tr in place.
func (tr trail) repath(prefix string) trail {
	// The tools of one source share a path: build each path once, not once per tool.
	var in, out string
	for i := range tr.entries {
		if p := tr.entries[i].path; i == 0 || p != in {
			in, out = p, prefix+p
		}
		tr.entries[i].path = out
	}
	for i := range tr.conflicts {
		srcs := make([]string, len(tr.conflicts[i].Sources))
		for j, s := range tr.conflicts[i].Sources {
			srcs[j] = prefix + s
		}
		tr.conflicts[i].Sources = srcs
	}
	return tr
}

// rewrite rewrites the path of every entry and conflict source with f. It changes tr in place.
func (tr trail) rewrite(f func(string) string) trail {
	// The tools of one source share a path: build each path once, not once per tool.
	var in, out string
	for i := range tr.entries {
		if p := tr.entries[i].path; i == 0 || p != in {
			in, out = p, f(p)
		}
		tr.entries[i].path = out
	}
	for i := range tr.conflicts {
		srcs := make([]string, len(tr.conflicts[i].Sources))
		for j, s := range tr.conflicts[i].Sources {
			srcs[j] = f(s)
		}
		tr.conflicts[i].Sources = srcs
	}
	return tr
}

// wrap is repath for a source that wraps another, such as a Prefix: a standalone tool inside it is part of the
// wrapper now, no longer listed on its own.
func (tr trail) wrap(f func(string) string) trail {
	tr = tr.rewrite(f)
	for i := range tr.entries {
		tr.entries[i].standalone = false
	}
	return tr
}

// settle checks a trail for names contributed more than once and returns the tools it offers. Several
// standalone tools of one name are not a conflict: the first is offered (see Combine).
func (tr trail) settle() ([]*Tool, error) {
	if len(tr.conflicts) == 0 && !tr.repeats() {
		// Most turns offer every name once: no grouping needed.
		tools := make([]*Tool, len(tr.entries))
		for i, e := range tr.entries {
			tools[i] = e.tool
		}
		return tools, nil
	}
	conflicts := append([]Conflict(nil), tr.conflicts...)
	groups := make(map[string][]int, len(tr.entries))
	var order []string
	for i, e := range tr.entries {
		if _, ok := groups[e.tool.Name]; !ok {
			order = append(order, e.tool.Name)
		}
		groups[e.tool.Name] = append(groups[e.tool.Name], i)
	}
	tools := make([]*Tool, 0, len(order))
	for _, name := range order {
		idx := groups[name]
		if len(idx) == 1 || allStandalone(tr.entries, idx) {
			tools = append(tools, tr.entries[idx[0]].tool)
			continue
		}
		c := Conflict{Name: name, Sources: make([]string, len(idx))}
		for j, i := range idx {
			c.Sources[j] = tr.entries[i].path
		}
		conflicts = append(conflicts, c)
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	return tools, nil
}

// repeats reports whether a name appears more than once among the entries. Short lists are compared pairwise,
// which allocates nothing; an agent's list is rarely longer.
func (tr trail) repeats() bool {
	es := tr.entries
	if len(es) <= 32 {
		for i := 1; i < len(es); i++ {
			for j := range i {
				if es[i].tool.Name == es[j].tool.Name {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(es))
	for _, e := range es {
		if _, ok := seen[e.tool.Name]; ok {
			return true
		}
		seen[e.tool.Name] = struct{}{}
	}
	return false
}

func allStandalone(es []entry, idx []int) bool {
	for _, i := range idx {
		if !es[i].standalone {
			return false
		}
	}
	return true
}

// sourceName is what src is called in paths and error messages: its SourceName when it has one, a standalone
// tool by its name, otherwise its Go type, such as toolset.SourceFunc.
func sourceName(src Source) string {
	switch s := src.(type) {
	case nil:
		return "<nil>"
	case Named:
		return s.SourceName()
	case *Tool:
		if s == nil {
			return "<nil>"
		}
		return fmt.Sprintf("tool %q", s.Name)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", src), "*")
}

// A pathError is the error of one source in a composition, named by its path like the sources of a [Conflict],
// such as `tools[2] Prefixed("x", Reports): connection refused`.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }

func (e *pathError) Unwrap() error { return e.err }

// repathErr rewrites the paths in err, a *pathError or several joined, with f, as [trail.repath] does.
func repathErr(err error, f func(string) string) error {
	switch e := err.(type) {
	case *pathError:
		return &pathError{path: f(e.path), err: e.err}
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		out := make([]error, len(errs))
		for i, x := range errs {
			out[i] = repathErr(x, f)
		}
		return errors.Join(out...)
	}
	return err
}
