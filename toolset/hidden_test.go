package toolset_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestCombinedToolsHidden(t *testing.T) {
	onlyQuery := func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
		return t.Name == "query", nil
	}
	dropAll := func(context.Context, *toolset.Run, *toolset.Tool) (bool, error) { return false, nil }
	passAll := func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		return tools, nil
	}
	tests := []struct {
		name       string
		src        *toolset.Combined
		wantTools  []string
		wantHidden []string
	}{
		{"no filter", toolset.Combine(newCompSource("Tickets", "query", "close")),
			[]string{"query", "close"}, nil},
		{"filter at the top", toolset.Combine(toolset.Filter(newCompSource("Tickets", "query", "close"), onlyQuery)),
			[]string{"query"}, []string{"close"}},
		{"prefix outside the filter names the hidden tool as offered",
			toolset.Combine(toolset.Prefix(toolset.Filter(newCompSource("Tickets", "query", "close"), onlyQuery), "db")),
			[]string{"db_query"}, []string{"db_close"}},
		{"rename outside the filter",
			toolset.Combine(toolset.Rename(toolset.Filter(newCompSource("Tickets", "query", "close"), onlyQuery), map[string]string{"query": "q"})),
			[]string{"q"}, []string{"close"}},
		{"nested combine",
			toolset.Combine(newCompSource("Echo", "echo"), toolset.Combine(toolset.Filter(newCompSource("Ops", "restart"), dropAll))),
			[]string{"echo"}, []string{"restart"}},
		{"a name another source offers is not hidden",
			toolset.Combine(toolset.Filter(newCompSource("Ops", "status"), dropAll), newCompSource("Health", "status")),
			[]string{"status"}, nil},
		{"hidden twice is listed once",
			toolset.Combine(toolset.Filter(newCompSource("A", "x"), dropAll), toolset.Filter(toolset.Prefix(newCompSource("B", "x"), "b"), dropAll), toolset.Filter(newCompSource("C", "x"), dropAll)),
			[]string{}, []string{"x", "b_x"}},
		{"a wrap forgets what filters inside it hid",
			toolset.Combine(toolset.Wrap(toolset.Filter(newCompSource("Ops", "restart"), dropAll), passAll)),
			[]string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tools, hidden, err := tt.src.ToolsHidden(context.Background(), &toolset.Run{})
			is.NoErr(err)
			is.Equal(compNames(tools), tt.wantTools)
			is.Equal(hidden, tt.wantHidden)
			plain, err := tt.src.Tools(context.Background(), &toolset.Run{})
			is.NoErr(err)
			is.Equal(compNames(plain), tt.wantTools) // Tools offers the same
		})
	}
}

func TestCombinedToolsHiddenConflict(t *testing.T) {
	is := is.New(t)
	_, hidden, err := toolset.Combine(newCompSource("A", "x"), newCompSource("B", "x")).ToolsHidden(context.Background(), &toolset.Run{})
	var ce *toolset.ConflictError
	is.True(errors.As(err, &ce))
	is.Equal(hidden, nil)
}
