package toolset_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	exampletickets "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestStatic(t *testing.T) {
	tool := &toolset.Tool{Name: "a"}
	dynamic := toolset.SourceFunc(func(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, nil })
	keep := func(context.Context, *toolset.Run, *toolset.Tool) (bool, error) { return true, nil }
	tests := []struct {
		name string
		src  toolset.Source
		want bool
	}{
		{"a tool", tool, true},
		{"a list", toolset.List{tool}, true},
		{"a generated toolset", &exampletickets.Tickets{}, true},
		{"a prefix of a generated toolset", toolset.Prefix(&exampletickets.Tickets{}, "t"), true},
		{"a prefix of a list", toolset.Prefix(toolset.List{tool}, "x"), true},
		{"a rename of a tool", toolset.Rename(tool, map[string]string{"a": "b"}), true},
		{"a combine of static sources", toolset.Combine(tool, toolset.Prefix(tool, "x")), true},
		{"a combine with a source function", toolset.Combine(tool, dynamic), false},
		{"a filter", toolset.Filter(toolset.List{tool}, keep), false},
		{"a source function", dynamic, false},
		{"nil", nil, false},
		{"a nil tool", (*toolset.Tool)(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).Equal(toolset.Static(tt.src), tt.want)
		})
	}
}
