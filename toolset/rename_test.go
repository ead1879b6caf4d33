package toolset_test

import (
	"context"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestRename(t *testing.T) {
	tests := []struct {
		name    string
		tools   []string
		renames map[string]string
		want    []string
		wantErr string
	}{
		{name: "empty map", tools: []string{"a", "b"}, renames: map[string]string{}, want: []string{"a", "b"}},
		{name: "nil map", tools: []string{"a", "b"}, renames: nil, want: []string{"a", "b"}},
		{name: "one, others pass through", tools: []string{"execute_query", "drop_table"},
			renames: map[string]string{"execute_query": "sql"}, want: []string{"sql", "drop_table"}},
		{name: "swap", tools: []string{"a", "b", "c"},
			renames: map[string]string{"a": "b", "b": "a"}, want: []string{"b", "a", "c"}},
		{name: "onto a name renamed away", tools: []string{"a", "b"},
			renames: map[string]string{"a": "b", "b": "c"}, want: []string{"b", "c"}},
		{name: "to itself", tools: []string{"a", "b"}, renames: map[string]string{"a": "a"}, want: []string{"a", "b"}},
		{
			name: "onto a passed-through name", tools: []string{"a", "b"}, renames: map[string]string{"a": "b"},
			wantErr: `Renamed(Tickets): rename "a" -> "b" collides with tool "b"`,
		},
		{
			name: "onto another rename's name", tools: []string{"a", "b", "c"}, renames: map[string]string{"a": "c", "b": "c"},
			wantErr: `Renamed(Tickets): rename "a" -> "c" collides with tool "c"; rename "b" -> "c" collides with tool "c"`,
		},
		{
			name: "two renames onto one new name", tools: []string{"a", "b"}, renames: map[string]string{"a": "x", "b": "x"},
			wantErr: `Renamed(Tickets): rename "b" -> "x" collides with rename "a" -> "x"`,
		},
		{
			name: "a key naming no tool", tools: []string{"a", "b"}, renames: map[string]string{"q": "z"},
			wantErr: `Renamed(Tickets): rename "q" -> "z": no tool is named "q" (tools: a, b)`,
		},
		{
			name: "a name providers reject", tools: []string{"a"}, renames: map[string]string{"a": "a b"},
			wantErr: `Renamed(Tickets): rename "a" -> "a b": not a valid tool name: use letters, digits, '_' and '-', at most 64 bytes`,
		},
		{
			name: "every mistake at once", tools: []string{"a", "b"}, renames: map[string]string{"a": "b", "q": "z"},
			wantErr: `Renamed(Tickets): rename "a" -> "b" collides with tool "b"; rename "q" -> "z": no tool is named "q" (tools: a, b)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			src := newCompSource("Tickets", tt.tools...)
			tools, err := toolset.Rename(src, tt.renames).Tools(context.Background(), nil)
			if tt.wantErr != "" {
				is.True(err != nil)
				is.Equal(err.Error(), tt.wantErr)
				return
			}
			is.NoErr(err)
			is.Equal(compNames(tools), tt.want)
			for i, tool := range tools {
				is.Equal(tool.ID, src.tools[i].ID) // identity survives the rename
				is.True(tool.State == src.tools[i].State)
				is.Equal(src.tools[i].Name, tt.tools[i]) // the original is untouched
			}
		})
	}
}

func TestRenameCopiesMap(t *testing.T) {
	is := is.New(t)
	m := map[string]string{"a": "x"}
	src := toolset.Rename(newCompSource("Tickets", "a"), m)
	m["a"] = "y"
	tools, err := src.Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(compNames(tools), []string{"x"})
}

func TestRenameInsideFilter(t *testing.T) {
	// A key naming a tool that a filter hides is an error outside the filter and fine inside it.
	hideA := func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
		return t.ID != "Tickets.a", nil
	}
	m := map[string]string{"a": "x"}
	is := is.New(t)

	_, err := toolset.Rename(toolset.Filter(newCompSource("Tickets", "a", "b"), hideA), m).Tools(context.Background(), nil)
	is.True(err != nil)
	is.Equal(err.Error(), `Renamed(Filtered(Tickets)): rename "a" -> "x": no tool is named "a" (tools: b)`)

	tools, err := toolset.Filter(toolset.Rename(newCompSource("Tickets", "a", "b"), m), hideA).Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(compNames(tools), []string{"b"})
}
