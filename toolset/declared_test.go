package toolset_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
)

func TestDeclaredNamesTheCause(t *testing.T) {
	build := func([]*toolset.ToolBuilder) ([]*toolset.Tool, error) { return nil, nil }
	tests := []struct {
		name    string
		declare func(*toolset.Toolset) func()
		known   int
		want    string
	}{
		// A Declare method with a value receiver records its chains on a copy of the toolset.
		{"value receiver", func(*toolset.Toolset) func() {
			var copied toolset.Toolset
			return func() { copied.AddTool(func() string { return "" }) }
		}, 1,
			"toolset Copy declares no tools but its generated code knows 1: give Declare a pointer receiver"},
		{"a tool more than generated", func(ts *toolset.Toolset) func() {
			return func() { ts.AddTool(func() {}); ts.AddTool(func() {}) }
		}, 1, "toolset Copy declares 2 tools but its generated code knows 1: generated code is out of date: run typeshift generate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var ts toolset.Toolset
			_, err := ts.Declared("Copy", tt.declare(&ts), tt.known, build)
			is.True(errors.Is(err, toolset.ErrStale))
			is.True(strings.HasPrefix(err.Error(), tt.want)) // the message names the cause
		})
	}
}
