package toolset

import (
	"context"
	"errors"
	"fmt"
)

// DefaultSeparator joins a prefix to a tool's name. An underscore is accepted by every provider's tool-name
// pattern and keeps names lower_snake_case.
const DefaultSeparator = "_"

// Prefixed is a source that offers the tools of another under a namespace, as "db_query" for "query". Make one
// with [Prefix] or [PrefixSep].
//
// The tools it offers are clones ([Tool.Clone]) of the wrapped source's tools: they keep their ID, so approval
// rules and stored settings still apply, and share their [State], so caches, rate limits and a sub-agent's
// delegate are the same for every name a tool is offered under.
type Prefixed struct {
	src    Source
	prefix string
	sep    string
}

// Prefix offers the tools of src with prefix and an underscore before their names: Prefix(tickets, "db") offers
// "search" as "db_search".
func Prefix(src Source, prefix string) *Prefixed {
	return &Prefixed{src: src, prefix: prefix, sep: DefaultSeparator}
}

// PrefixSep is [Prefix] with another separator: PrefixSep(tickets, "db", "-") offers "search" as "db-search".
func PrefixSep(src Source, prefix, sep string) *Prefixed {
	return &Prefixed{src: src, prefix: prefix, sep: sep}
}

// SourceName returns the source's name in error messages, such as `Prefixed("db", Tickets)`.
func (p *Prefixed) SourceName() string { return p.name(sourceName(p.src)) }

func (p *Prefixed) name(inner string) string {
	if p.sep == DefaultSeparator {
		return fmt.Sprintf("Prefixed(%q, %s)", p.prefix, inner)
	}
	return fmt.Sprintf("Prefixed(%q, %q, %s)", p.prefix, p.sep, inner)
}

// Tools returns the prefixed copies of the wrapped source's tools for this turn.
func (p *Prefixed) Tools(ctx context.Context, run *Run) ([]*Tool, error) {
	tr, err := p.trace(ctx, run)
	if err != nil {
		return nil, err
	}
	return tr.settle()
}

func (p *Prefixed) trace(ctx context.Context, run *Run) (trail, error) {
	if p.prefix == "" {
		return trail{}, &pathError{path: p.SourceName(), err: errors.New("the prefix is empty")}
	}
	tr, err := traceOf(ctx, run, p.src)
	if err != nil {
		return trail{}, repathErr(err, p.name)
	}
	for i, e := range tr.entries {
		name := p.prefix + p.sep + e.tool.Name
		if !validSurfaceName(name) {
			return trail{}, &pathError{path: p.SourceName(), err: fmt.Errorf(
				"%q is not a valid tool name: use letters, digits, '_' and '-', at most %d bytes", name, maxNameLen)}
		}
		tr.entries[i].tool = withName(e.tool, name)
	}
	for i, h := range tr.hidden {
		tr.hidden[i] = p.prefix + p.sep + h
	}
	return tr.wrap(p.name), nil
}
