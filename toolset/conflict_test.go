package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

// compSource is a hand-built toolset that stands in for a generated one: named, with tools built once, each with
// its own State and an ID that names the toolset.
type compSource struct {
	name  string
	tools []*toolset.Tool
	calls int
}

func newCompSource(name string, toolNames ...string) *compSource {
	s := &compSource{name: name}
	for _, n := range toolNames {
		s.tools = append(s.tools, compTool(name+"."+n, n))
	}
	return s
}

func (s *compSource) SourceName() string { return s.name }

func (s *compSource) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
	s.calls++
	return append([]*toolset.Tool(nil), s.tools...), nil
}

// compTool builds a tool by hand whose result names the tool's ID and the name it was called by.
func compTool(id, name string) *toolset.Tool {
	return &toolset.Tool{
		Name:        name,
		Description: "Tool " + name + ".",
		Schema:      json.RawMessage(`{"type":"object"}`),
		ID:          id,
		State:       &toolset.State{},
		Invoke: func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
			return json.Marshal(map[string]string{"id": id, "called_as": call.Name})
		},
	}
}

func compNames(tools []*toolset.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// snapshot records what callers could observe of a tool, to show composition never changes the originals.
type snapshot struct {
	Name, Description, ID string
	State                 *toolset.State
}

func snap(tools []*toolset.Tool) []snapshot {
	out := make([]snapshot, len(tools))
	for i, t := range tools {
		out[i] = snapshot{t.Name, t.Description, t.ID, t.State}
	}
	return out
}

func TestConflictErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *toolset.ConflictError
		want string
	}{
		{
			name: "one",
			err: &toolset.ConflictError{Conflicts: []toolset.Conflict{
				{Name: "q", Sources: []string{"tools[0] A", "tools[1] B"}},
			}},
			want: `tool name conflict: "q" contributed by: tools[0] A, tools[1] B`,
		},
		{
			name: "several",
			err: &toolset.ConflictError{Conflicts: []toolset.Conflict{
				{Name: "q", Sources: []string{"tools[0] A", "tools[1] B"}},
				{Name: "r", Sources: []string{"tools[0] A", "tools[1] B", "tools[2] C"}},
			}},
			want: "2 tool name conflicts:\n" +
				`  - "q" contributed by: tools[0] A, tools[1] B` + "\n" +
				`  - "r" contributed by: tools[0] A, tools[1] B, tools[2] C`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(tt.err.Error(), tt.want)
			var ce *toolset.ConflictError
			is.True(errors.As(error(tt.err), &ce))
		})
	}
}
