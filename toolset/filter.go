package toolset

import (
	"context"
	"log/slog"
)

// A Predicate decides whether a tool is offered in this turn. It receives the tool as the source it filters
// offers it, so a filter outside a [Prefix] sees prefixed names. Per-request values, such as the user's role,
// come from ctx.
type Predicate func(ctx context.Context, run *Run, t *Tool) (bool, error)

// Filtered is a source that offers the tools of another that a predicate keeps. Make one with [Filter].
type Filtered struct {
	src  Source
	keep Predicate

	// OnError, when set, is told of each predicate error. The tool is hidden whatever OnError does: a filter that
	// cannot decide fails closed. When OnError is nil, the error is logged with [slog.WarnContext], so that a
	// broken predicate never hides tools without a trace. Set OnError before the source is first used.
	OnError func(ctx context.Context, run *Run, t *Tool, err error)
}

// Filter offers the tools of src for which keep returns true. keep is called for every tool every turn, so what
// is offered may change as the run goes on. A tool for which keep returns an error is hidden (see
// [Filtered.OnError]); the turn goes on with the other tools.
func Filter(src Source, keep Predicate) *Filtered {
	return &Filtered{src: src, keep: keep}
}

// SourceName returns the source's name in error messages, such as "Filtered(Tickets)".
func (f *Filtered) SourceName() string { return f.name(sourceName(f.src)) }

func (f *Filtered) name(inner string) string { return "Filtered(" + inner + ")" }

// Tools returns the wrapped source's tools that the predicate keeps this turn.
func (f *Filtered) Tools(ctx context.Context, run *Run) ([]*Tool, error) {
	tr, err := f.trace(ctx, run)
	if err != nil {
		return nil, err
	}
	return tr.settle()
}

func (f *Filtered) trace(ctx context.Context, run *Run) (trail, error) {
	tr, err := traceOf(ctx, run, f.src)
	if err != nil {
		return trail{}, repathErr(err, f.name)
	}
	kept := tr.entries[:0]
	for _, e := range tr.entries {
		if f.keeps(ctx, run, e.tool) {
			kept = append(kept, e)
		} else {
			tr.hidden = append(tr.hidden, e.tool.Name)
		}
	}
	tr.entries = kept
	return tr.wrap(f.name), nil
}

// keeps runs the predicate; a nil predicate keeps nothing, as a predicate that cannot answer.
func (f *Filtered) keeps(ctx context.Context, run *Run, t *Tool) (ok bool) {
	if f.keep == nil {
		return false
	}
	ok, err := f.keep(ctx, run, t)
	if err == nil {
		return ok
	}
	if f.OnError != nil {
		f.OnError(ctx, run, t, err)
	} else {
		slog.WarnContext(ctx, "tool filter failed: tool hidden", "source", f.SourceName(), "tool", t.Name, "error", err)
	}
	return false
}
