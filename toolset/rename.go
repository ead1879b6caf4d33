package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Renamed is a source that offers the tools of another under other names. Make one with [Rename].
//
// Like [Prefixed], it offers clones that keep their ID and share their [State].
type Renamed struct {
	src     Source
	renames map[string]string
	keys    []string // sorted, so that errors read the same every turn
}

// Rename offers the tools of src with the names in renames, a map from a tool's name in src to the name to offer
// it under. Tools not in the map keep their names; an empty map changes nothing.
//
// Each turn, Rename fails when the result would be ambiguous or the map is wrong:
//   - a new name that another tool keeps or gets ("a" -> "b" while "b" passes through, or "a" -> "c" and
//     "b" -> "c"); a swap ("a" -> "b" and "b" -> "a") is fine, since "b" no longer holds its old name;
//   - a key that names no tool of src. A stale map (a tool renamed upstream, a typo) would otherwise offer the tool
//     under its old name without a word. To rename a tool that a filter hides for some runs, rename inside the
//     filter: Filter(Rename(src, m), keep);
//   - a new name that providers reject (letters, digits, '_' and '-', at most 64 bytes).
//
// Rename copies the map, so later changes to it have no effect.
func Rename(src Source, renames map[string]string) *Renamed {
	return &Renamed{src: src, renames: maps.Clone(renames), keys: slices.Sorted(maps.Keys(renames))}
}

// SourceName returns the source's name in error messages, such as "Renamed(Tickets)".
func (r *Renamed) SourceName() string { return r.name(sourceName(r.src)) }

func (r *Renamed) name(inner string) string { return "Renamed(" + inner + ")" }

// Tools returns the wrapped source's tools for this turn, renamed.
func (r *Renamed) Tools(ctx context.Context, run *Run) ([]*Tool, error) {
	tr, err := r.trace(ctx, run)
	if err != nil {
		return nil, err
	}
	return tr.settle()
}

func (r *Renamed) trace(ctx context.Context, run *Run) (trail, error) {
	tr, err := traceOf(ctx, run, r.src)
	if err != nil {
		return trail{}, repathErr(err, r.name)
	}
	if len(r.renames) == 0 {
		return tr.wrap(r.name), nil
	}
	if err := r.check(tr.entries); err != nil {
		return trail{}, &pathError{path: r.SourceName(), err: err}
	}
	for i, e := range tr.entries {
		if to, ok := r.renames[e.tool.Name]; ok && to != e.tool.Name {
			tr.entries[i].tool = withName(e.tool, to)
		}
	}
	// Hidden names pass unchanged: a key naming a hidden tool is an error above.
	return tr.wrap(r.name), nil
}

// check reports every mistake of the map against this turn's tools, in the order of the map's sorted keys so that
// the message is the same every turn.
func (r *Renamed) check(es []entry) error {
	have := make(map[string]bool, len(es))
	for _, e := range es {
		have[e.tool.Name] = true
	}
	// taken maps each name offered after renaming to the name it had, to find two names landing on one.
	taken := make(map[string]string, len(es))
	for name := range have {
		if _, renamed := r.renames[name]; !renamed {
			taken[name] = name
		}
	}
	var problems []string
	for _, from := range r.keys {
		to := r.renames[from]
		switch {
		case !have[from]:
			problems = append(problems, fmt.Sprintf("rename %q -> %q: no tool is named %q (tools: %s)",
				from, to, from, strings.Join(slices.Sorted(maps.Keys(have)), ", ")))
		case !validSurfaceName(to):
			problems = append(problems, fmt.Sprintf("rename %q -> %q: not a valid tool name: use letters, digits, '_' and '-', at most %d bytes",
				from, to, maxNameLen))
		default:
			prev, clash := taken[to]
			switch {
			case !clash:
				taken[to] = from
			case prev == to:
				problems = append(problems, fmt.Sprintf("rename %q -> %q collides with tool %q", from, to, to))
			default:
				problems = append(problems, fmt.Sprintf("rename %q -> %q collides with rename %q -> %q", from, to, prev, to))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// withName returns a clone of t offered as name. Configure is wrapped so that a configured copy keeps the name:
// the generated Configure builds the tool afresh, under its own name.
func withName(t *Tool, name string) *Tool {
	c := t.Clone()
	c.Name = name
	if configure := t.Configure; configure != nil {
		c.Configure = func(overrides json.RawMessage) (*Tool, error) {
			u, err := configure(overrides)
			if err != nil {
				return nil, err
			}
			return withName(u, name), nil
		}
	}
	return c
}

// maxNameLen is the longest tool name providers accept.
const maxNameLen = 64

// validSurfaceName reports whether providers accept name as a tool's name: ASCII letters, digits, '_' and '-',
// 1 to 64 bytes. Composition may make names that are not lower_snake_case (a "-" separator), so this is wider
// than [ValidName].
func validSurfaceName(name string) bool {
	if name == "" || len(name) > maxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
