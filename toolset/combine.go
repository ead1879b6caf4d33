package toolset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Combined is a source that offers the tools of several, in declaration order. Make one with [Combine].
type Combined struct {
	srcs []Source
	// top and nested are the path of each source, "tools[i] " at the top and "Combined(...)[i] " inside another
	// source, made once rather than at every turn.
	top, nested []string
}

// Combine offers the tools of every source in srcs, in the order given.
//
// A name offered by more than one source is an error: Tools returns a [*ConflictError] that lists every such
// name, each with every source that contributes it, named by its path through the composition:
//
//	"shared_query" contributed by: tools[0] Prefixed("db", Tickets), tools[2] Prefixed("db", Reports)
//
// Conflicts are found at every level: the tools of a Combine inside a Combine, or inside a [Prefix] or [Rename]
// inside a Combine, are checked together with the rest, and reported with their nested path, such as
// `tools[1] Combined(...)[0] Tickets`.
//
// A *Tool listed directly is a standalone tool. A standalone tool that shares its name with a tool of a
// toolset is a conflict like any other; standalone tools that share a name with each other are not, and the first
// is offered, so that several instances of one tool (as a tool-search tool added by several helpers) may be
// listed without coordination.
func Combine(srcs ...Source) *Combined {
	c := &Combined{srcs: append([]Source(nil), srcs...), top: make([]string, len(srcs)), nested: make([]string, len(srcs))}
	for i := range srcs {
		c.top[i] = fmt.Sprintf("tools[%d] ", i)
		c.nested[i] = fmt.Sprintf("%s[%d] ", nestedLabel, i)
	}
	return c
}

// SourceName returns the source's name in error messages, such as "Combined(Tickets, Reports)".
func (c *Combined) SourceName() string {
	names := make([]string, len(c.srcs))
	for i, s := range c.srcs {
		names[i] = sourceName(s)
	}
	return "Combined(" + strings.Join(names, ", ") + ")"
}

// Tools returns the tools of every source for this turn, or the errors and conflicts found in any of them.
func (c *Combined) Tools(ctx context.Context, run *Run) ([]*Tool, error) {
	tr, err := c.collect(ctx, run, c.top)
	if err != nil {
		return nil, err
	}
	return tr.settle()
}

// ToolsHidden is [Combined.Tools] that also returns the names of the tools a [Filter] inside c hid this turn, under
// the names the model would have seen them by, and that no other source offers. A caller that answers the model
// uses them to tell a hidden tool ("not available in this run") from one that does not exist. Filters inside a
// [Wrap] are not seen: its function may offer anything.
func (c *Combined) ToolsHidden(ctx context.Context, run *Run) (tools []*Tool, hidden []string, err error) {
	tr, err := c.collect(ctx, run, c.top)
	if err != nil {
		return nil, nil, err
	}
	if tools, err = tr.settle(); err != nil {
		return nil, nil, err
	}
	for _, h := range tr.hidden {
		if !slices.Contains(hidden, h) && !slices.ContainsFunc(tools, func(t *Tool) bool { return t.Name == h }) {
			hidden = append(hidden, h)
		}
	}
	return tools, hidden, nil
}

// nestedLabel stands for a Combine inside another in paths: its sources follow as [i], so listing them is noise.
const nestedLabel = "Combined(...)"

func (c *Combined) trace(ctx context.Context, run *Run) (trail, error) {
	return c.collect(ctx, run, c.nested)
}

// collect asks every source for its tools and their origins, naming source i by at[i]. It asks all of them even
// after one fails, so that one error reports every failing source.
func (c *Combined) collect(ctx context.Context, run *Run, at []string) (trail, error) {
	var (
		out  trail
		errs []error
	)
	for i, src := range c.srcs {
		if t, ok := src.(*Tool); ok && t != nil {
			out.entries = append(out.entries, entry{tool: t, path: at[i] + sourceName(t), standalone: true})
			continue
		}
		tr, err := traceOf(ctx, run, src)
		if err != nil {
			under := func(p string) string { return at[i] + p }
			// A source that hides its contents (a Wrap around a Combine) reports its own conflicts: keep them in
			// the list, below the path of that source, so they are not lost in a joined error.
			if pe, ok := err.(*pathError); ok {
				if ce, ok := pe.err.(*ConflictError); ok {
					for _, cf := range ce.Conflicts {
						cf.Sources = prepend(under(pe.path)+" / ", cf.Sources)
						out.conflicts = append(out.conflicts, cf)
					}
					continue
				}
			}
			errs = append(errs, repathErr(err, under))
			continue
		}
		tr = tr.repath(at[i])
		out.entries = append(out.entries, tr.entries...)
		out.conflicts = append(out.conflicts, tr.conflicts...)
		out.hidden = append(out.hidden, tr.hidden...)
	}
	if len(errs) > 0 {
		return trail{}, errors.Join(errs...)
	}
	return out, nil
}

func prepend(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}

// Tools offers the tool alone, which makes a *Tool a [Source]: listed directly in [Combine], it is a standalone
// tool.
func (t *Tool) Tools(context.Context, *Run) ([]*Tool, error) {
	return []*Tool{t}, nil
}
