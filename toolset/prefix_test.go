package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestPrefix(t *testing.T) {
	tickets := func() toolset.Source { return newCompSource("Tickets", "search", "close") }
	tests := []struct {
		name    string
		src     toolset.Source
		want    []string
		wantErr string
	}{
		{name: "default separator", src: toolset.Prefix(tickets(), "db"), want: []string{"db_search", "db_close"}},
		{name: "other separator", src: toolset.PrefixSep(tickets(), "db", "-"), want: []string{"db-search", "db-close"}},
		{name: "empty separator", src: toolset.PrefixSep(tickets(), "db", ""), want: []string{"dbsearch", "dbclose"}},
		{name: "twice", src: toolset.Prefix(toolset.Prefix(tickets(), "db"), "ops"), want: []string{"ops_db_search", "ops_db_close"}},
		{name: "empty source", src: toolset.Prefix(toolset.List{}, "db"), want: []string{}},
		{name: "empty prefix", src: toolset.Prefix(tickets(), ""), wantErr: `Prefixed("", Tickets): the prefix is empty`},
		{
			name:    "name too long",
			src:     toolset.Prefix(tickets(), strings.Repeat("p", 60)),
			wantErr: `is not a valid tool name`,
		},
		{
			name:    "separator providers reject",
			src:     toolset.PrefixSep(tickets(), "db", "."),
			wantErr: `Prefixed("db", ".", Tickets): "db.search" is not a valid tool name`,
		},
		{name: "nil source", src: toolset.Prefix(nil, "db"), wantErr: `Prefixed("db", <nil>): source is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tools, err := tt.src.Tools(context.Background(), nil)
			if tt.wantErr != "" {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), tt.wantErr)) // the error says what is wrong
				return
			}
			is.NoErr(err)
			is.Equal(compNames(tools), tt.want)
		})
	}
}

func TestPrefixClonesShareState(t *testing.T) {
	is := is.New(t)
	tickets := newCompSource("Tickets", "search")
	orig := tickets.tools[0]
	orig.State.Delegate = "support-agent"
	orig.State.SetValue("cache", map[string]int{"hits": 1})

	src := toolset.Rename(toolset.Prefix(tickets, "db"), map[string]string{"db_search": "find"})
	tools, err := src.Tools(context.Background(), nil)
	is.NoErr(err)
	c := tools[0]
	is.Equal(c.Name, "find")
	is.True(c != orig)             // a copy
	is.True(c.State == orig.State) // sharing the State by pointer
	is.Equal(c.ID, "Tickets.search")
	is.Equal(c.State.Delegate, "support-agent")
	c.State.SetValue("rate", 3)
	v, ok := orig.State.Value("rate")
	is.True(ok) // a limit counted through the copy counts for the original
	is.Equal(v, 3)
	is.Equal(orig.Name, "search") // the original keeps its name

	res, err := c.Call(context.Background(), &toolset.Call{Name: c.Name, Arguments: json.RawMessage(`{}`)})
	is.NoErr(err)
	is.Equal(string(res), `{"called_as":"find","id":"Tickets.search"}`) // the original's invoker runs
}

// configurable returns a hand-built tool whose Configure builds it afresh under its own name, as generated code
// does, recording the overrides in its description.
func configurable(id, name, desc string, state *toolset.State) *toolset.Tool {
	t := compTool(id, name)
	t.Description, t.State = desc, state
	t.Configure = func(overrides json.RawMessage) (*toolset.Tool, error) {
		return configurable(id, name, desc+" "+string(overrides), state), nil
	}
	return t
}

func TestConfigureKeepsSurfaceName(t *testing.T) {
	tests := []struct {
		name string
		wrap func(toolset.Source) toolset.Source
		want string
	}{
		{"prefix", func(s toolset.Source) toolset.Source { return toolset.Prefix(s, "db") }, "db_search"},
		{"rename", func(s toolset.Source) toolset.Source {
			return toolset.Rename(s, map[string]string{"search": "find"})
		}, "find"},
		{"rename of prefix", func(s toolset.Source) toolset.Source {
			return toolset.Rename(toolset.Prefix(s, "db"), map[string]string{"db_search": "find"})
		}, "find"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			orig := configurable("Tickets.search", "search", "Search.", &toolset.State{})
			tools, err := tt.wrap(toolset.List{orig}).Tools(context.Background(), nil)
			is.NoErr(err)
			got, err := tools[0].WithOverrides(json.RawMessage(`{"limit":5}`), json.RawMessage(`{"limit":7}`))
			is.NoErr(err)
			is.Equal(got.Name, tt.want) // configured twice, still offered under the surface name
			is.Equal(got.Description, `Search. {"limit":5} {"limit":7}`)
			is.Equal(got.ID, "Tickets.search")
			is.True(got.State == orig.State)
			is.Equal(orig.Name, "search")
		})
	}
}
