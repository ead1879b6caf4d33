package toolset_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestCombineConflicts(t *testing.T) {
	tests := []struct {
		name  string
		build func() toolset.Source
		// want lists the conflicts expected, in order; nil means no error.
		want []toolset.Conflict
		// tools lists the names offered when there is no conflict.
		tools []string
	}{
		{
			name: "no conflict keeps declaration order",
			build: func() toolset.Source {
				return toolset.Combine(newCompSource("Weather", "temp", "wind"), newCompSource("Tickets", "search"))
			},
			tools: []string{"temp", "wind", "search"},
		},
		{
			name: "toolset vs toolset",
			build: func() toolset.Source {
				return toolset.Combine(
					toolset.Prefix(newCompSource("Tickets", "query"), "db"),
					newCompSource("Weather", "temp"),
					toolset.Prefix(newCompSource("Reports", "query"), "db"),
				)
			},
			want: []toolset.Conflict{{Name: "db_query", Sources: []string{
				`tools[0] Prefixed("db", Tickets)`, `tools[2] Prefixed("db", Reports)`,
			}}},
		},
		{
			name: "toolset vs standalone",
			build: func() toolset.Source {
				return toolset.Combine(compTool("adhoc.search", "search"), newCompSource("Tickets", "search", "close"))
			},
			want: []toolset.Conflict{{Name: "search", Sources: []string{`tools[0] tool "search"`, "tools[1] Tickets"}}},
		},
		{
			name: "standalone vs standalone offers the first",
			build: func() toolset.Source {
				return toolset.Combine(compTool("one.search", "search"), newCompSource("Tickets", "close"), compTool("two.search", "search"))
			},
			tools: []string{"search", "close"},
		},
		{
			name: "standalone in a nested combine is still standalone",
			build: func() toolset.Source {
				return toolset.Combine(compTool("one.search", "search"), toolset.Combine(compTool("two.search", "search")))
			},
			tools: []string{"search"},
		},
		{
			name: "a prefixed standalone tool belongs to the prefix",
			build: func() toolset.Source {
				return toolset.Combine(compTool("one.db_x", "db_x"), toolset.Prefix(compTool("two.x", "x"), "db"))
			},
			want: []toolset.Conflict{{Name: "db_x", Sources: []string{`tools[0] tool "db_x"`, `tools[1] Prefixed("db", tool "x")`}}},
		},
		{
			name: "nested inside combined",
			build: func() toolset.Source {
				return toolset.Combine(
					newCompSource("Weather", "temp"),
					toolset.Combine(newCompSource("Tickets", "search"), newCompSource("Reports", "search")),
				)
			},
			want: []toolset.Conflict{{Name: "search", Sources: []string{
				"tools[1] Combined(...)[0] Tickets", "tools[1] Combined(...)[1] Reports",
			}}},
		},
		{
			name: "nested vs top level",
			build: func() toolset.Source {
				return toolset.Combine(
					newCompSource("Tickets", "search"),
					toolset.Combine(newCompSource("Weather", "temp"), toolset.Combine(newCompSource("Reports", "search"))),
				)
			},
			want: []toolset.Conflict{{Name: "search", Sources: []string{
				"tools[0] Tickets", "tools[1] Combined(...)[1] Combined(...)[0] Reports",
			}}},
		},
		{
			name: "nested inside a prefix",
			build: func() toolset.Source {
				return toolset.Combine(toolset.Prefix(toolset.Combine(newCompSource("Tickets", "q"), newCompSource("Reports", "q")), "x"))
			},
			want: []toolset.Conflict{{Name: "x_q", Sources: []string{
				`tools[0] Prefixed("x", Combined(...)[0] Tickets)`, `tools[0] Prefixed("x", Combined(...)[1] Reports)`,
			}}},
		},
		{
			name: "nested inside a rename",
			build: func() toolset.Source {
				return toolset.Combine(toolset.Rename(
					toolset.Combine(newCompSource("Tickets", "q"), newCompSource("Reports", "q")), map[string]string{"q": "r"}))
			},
			want: []toolset.Conflict{{Name: "r", Sources: []string{
				"tools[0] Renamed(Combined(...)[0] Tickets)", "tools[0] Renamed(Combined(...)[1] Reports)",
			}}},
		},
		{
			name: "several at once, every source",
			build: func() toolset.Source {
				return toolset.Combine(
					newCompSource("Tickets", "search", "close", "get"),
					compTool("adhoc.get", "get"),
					toolset.Combine(newCompSource("Reports", "search", "close")),
					toolset.Rename(newCompSource("Archive", "find"), map[string]string{"find": "search"}),
				)
			},
			want: []toolset.Conflict{
				{Name: "search", Sources: []string{
					"tools[0] Tickets", "tools[2] Combined(...)[0] Reports", "tools[3] Renamed(Archive)",
				}},
				{Name: "close", Sources: []string{"tools[0] Tickets", "tools[2] Combined(...)[0] Reports"}},
				{Name: "get", Sources: []string{"tools[0] Tickets", `tools[1] tool "get"`}},
			},
		},
		{
			name: "inside a wrap, listed with the rest",
			build: func() toolset.Source {
				return toolset.Combine(
					newCompSource("Tickets", "search"),
					toolset.Wrap(toolset.Combine(newCompSource("Reports", "q"), newCompSource("Archive", "q")), nil),
					newCompSource("Reports", "search"),
				)
			},
			want: []toolset.Conflict{
				{Name: "q", Sources: []string{
					"tools[1] Wrapped(Combined(Reports, Archive)) / tools[0] Reports",
					"tools[1] Wrapped(Combined(Reports, Archive)) / tools[1] Archive",
				}},
				{Name: "search", Sources: []string{"tools[0] Tickets", "tools[2] Reports"}},
			},
		},
		{
			name: "inside a wrap, deep inside",
			build: func() toolset.Source {
				inner := toolset.Wrap(toolset.Combine(newCompSource("Reports", "q"), newCompSource("Archive", "q")), nil)
				return toolset.Combine(newCompSource("Tickets", "x_q"), toolset.Prefix(toolset.Combine(inner), "x"))
			},
			want: []toolset.Conflict{{Name: "q", Sources: []string{
				`tools[1] Prefixed("x", Combined(...)[0] Wrapped(Combined(Reports, Archive)) / tools[0] Reports)`,
				`tools[1] Prefixed("x", Combined(...)[0] Wrapped(Combined(Reports, Archive)) / tools[1] Archive)`,
			}}},
		},
		{
			name: "sources without a name are called by their type",
			build: func() toolset.Source {
				return toolset.Combine(
					toolset.List{compTool("a.x", "x")},
					toolset.SourceFunc(func(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
						return []*toolset.Tool{compTool("b.x", "x")}, nil
					}),
				)
			},
			want: []toolset.Conflict{{Name: "x", Sources: []string{"tools[0] toolset.List", "tools[1] toolset.SourceFunc"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tools, err := tt.build().Tools(context.Background(), &toolset.Run{})
			if tt.want == nil {
				is.NoErr(err)
				is.Equal(compNames(tools), tt.tools)
				return
			}
			var ce *toolset.ConflictError
			is.True(errors.As(err, &ce)) // a *ConflictError
			is.Equal(ce.Conflicts, tt.want)
			is.Equal(tools, nil)
		})
	}
}

func TestCombineStandaloneKeepsFirst(t *testing.T) {
	is := is.New(t)
	first, second := compTool("one.search", "search"), compTool("two.search", "search")
	tools, err := toolset.Combine(first, second).Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 1)
	is.True(tools[0] == first) // the first standalone tool is offered
}

func TestCombineErrors(t *testing.T) {
	boom := errors.New("boom")
	failing := toolset.SourceFunc(func(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, boom })
	tests := []struct {
		name string
		src  toolset.Source
		want []string // lines of the joined error
	}{
		{
			name: "every failing source, by path",
			src:  toolset.Combine(failing, newCompSource("Tickets", "a"), toolset.Prefix(failing, "x"), nil, (*toolset.Tool)(nil)),
			want: []string{
				"tools[0] toolset.SourceFunc: boom",
				`tools[2] Prefixed("x", toolset.SourceFunc): boom`,
				"tools[3] <nil>: source is nil",
				"tools[4] <nil>: yielded a nil tool",
			},
		},
		{
			name: "nested",
			src:  toolset.Combine(newCompSource("Tickets", "a"), toolset.Combine(failing)),
			want: []string{"tools[1] Combined(...)[0] toolset.SourceFunc: boom"},
		},
		{
			name: "inside a prefix of a nested combine",
			src:  toolset.Combine(toolset.Prefix(toolset.Combine(failing), "x")),
			want: []string{`tools[0] Prefixed("x", Combined(...)[0] toolset.SourceFunc): boom`},
		},
		{
			name: "wrapped",
			src: toolset.Combine(
				toolset.Wrap(failing, nil),
				toolset.Wrap(newCompSource("Tickets", "a"), func(context.Context, *toolset.Run, []*toolset.Tool) ([]*toolset.Tool, error) {
					return nil, errors.New("bad")
				}),
			),
			want: []string{"tools[0] Wrapped(toolset.SourceFunc): boom", "tools[1] Wrapped(Tickets): bad"},
		},
		{
			name: "a failing rename",
			src:  toolset.Combine(toolset.Rename(newCompSource("Tickets", "a", "b"), map[string]string{"a": "b"})),
			want: []string{`tools[0] Renamed(Tickets): rename "a" -> "b" collides with tool "b"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := tt.src.Tools(context.Background(), nil)
			is.True(err != nil)
			is.Equal(strings.Split(err.Error(), "\n"), tt.want)
		})
	}
	is := is.New(t)
	_, err := toolset.Combine(failing).Tools(context.Background(), nil)
	is.True(errors.Is(err, boom)) // the source's error is wrapped
}

func TestCombineNeverChangesTools(t *testing.T) {
	is := is.New(t)
	tickets := newCompSource("Tickets", "search", "close")
	reports := newCompSource("Reports", "search")
	before := snap(tickets.tools)
	src := toolset.Combine(
		toolset.Prefix(tickets, "t"),
		toolset.Rename(reports, map[string]string{"search": "find"}),
		toolset.Wrap(tickets, func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
			for i, t := range tools {
				c := t.Clone()
				c.Name, c.Description = "w_"+t.Name, "[beta] "+t.Description
				tools[i] = c
			}
			return tools, nil
		}),
	)
	first, err := src.Tools(context.Background(), nil)
	is.NoErr(err)
	second, err := src.Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(snap(first), snap(second)) // the same tools every turn
	is.Equal(compNames(first), []string{"t_search", "t_close", "find", "w_search", "w_close"})
	is.Equal(snap(tickets.tools), before) // the originals are untouched
	is.Equal(reports.tools[0].Name, "search")
	is.Equal(tickets.calls, 4) // asked every turn, by both wrappers
}

func TestSourceNames(t *testing.T) {
	tickets := newCompSource("Tickets", "a")
	tests := []struct {
		src  toolset.Named
		want string
	}{
		{toolset.Prefix(tickets, "db"), `Prefixed("db", Tickets)`},
		{toolset.PrefixSep(tickets, "db", "-"), `Prefixed("db", "-", Tickets)`},
		{toolset.Rename(tickets, nil), "Renamed(Tickets)"},
		{toolset.Filter(tickets, nil), "Filtered(Tickets)"},
		{toolset.Wrap(tickets, nil), "Wrapped(Tickets)"},
		{toolset.Wrap(tickets, nil).WithName("Tagged"), "Tagged(Tickets)"},
		{toolset.Combine(tickets, toolset.Prefix(tickets, "x"), compTool("a", "b")), `Combined(Tickets, Prefixed("x", Tickets), tool "b")`},
		{toolset.Filter(toolset.Prefix(toolset.List{}, "x"), nil), `Filtered(Prefixed("x", toolset.List))`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			is.Equal(tt.src.SourceName(), tt.want)
		})
	}
}

// BenchmarkCombineTools measures one turn of a typical composition: three prefixed toolsets, a filter and a
// standalone tool, combined and checked for conflicts.
func BenchmarkCombineTools(b *testing.B) {
	keep := func(context.Context, *toolset.Run, *toolset.Tool) (bool, error) { return true, nil }
	src := toolset.Combine(
		compTool("adhoc.echo", "echo"),
		toolset.Prefix(newCompSource("Tickets", "search", "get", "close", "assign", "comment"), "tickets"),
		toolset.Filter(toolset.Prefix(newCompSource("Admin", "delete_user", "restart_db"), "admin"), keep),
		toolset.Rename(newCompSource("Weather", "get_temp", "get_conditions"), map[string]string{"get_temp": "temperature"}),
	)
	ctx, run := context.Background(), &toolset.Run{}
	b.ReportAllocs()
	for b.Loop() {
		tools, err := src.Tools(ctx, run)
		if err != nil || len(tools) != 10 {
			b.Fatal(len(tools), err)
		}
	}
}
