package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

// tag returns a WrapFunc that prefixes every description with tag, cloning each tool.
func tag(tag string) toolset.WrapFunc {
	return func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		for i, t := range tools {
			c := t.Clone()
			c.Description = tag + " " + t.Description
			tools[i] = c
		}
		return tools, nil
	}
}

func TestWrapTransforms(t *testing.T) {
	is := is.New(t)
	src := newCompSource("Tickets", "search", "close")
	tools, err := toolset.Wrap(src, tag("[beta]")).Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(tools[0].Description, "[beta] Tool search.")
	is.Equal(tools[1].Description, "[beta] Tool close.")
	is.Equal(src.tools[0].Description, "Tool search.") // the original is untouched
	is.True(tools[0].State == src.tools[0].State)
}

func TestWrapMiddleware(t *testing.T) {
	is := is.New(t)
	var log []string
	audit := func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		for i, t := range tools {
			next := t.Invoke
			c := t.Clone()
			c.Invoke = func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
				log = append(log, "before "+call.Name)
				res, err := next(ctx, call)
				log = append(log, "after "+call.Name)
				return res, err
			}
			tools[i] = c
		}
		return tools, nil
	}
	tools, err := toolset.Prefix(toolset.Wrap(newCompSource("Tickets", "search"), audit), "t").Tools(context.Background(), nil)
	is.NoErr(err)
	res, err := tools[0].Call(context.Background(), &toolset.Call{Name: tools[0].Name})
	is.NoErr(err)
	is.Equal(string(res), `{"called_as":"t_search","id":"Tickets.search"}`)
	is.Equal(log, []string{"before t_search", "after t_search"})
}

func TestWrapErrors(t *testing.T) {
	dup := func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		return append(tools, tools[0]), nil
	}
	failing := func(context.Context, *toolset.Run, []*toolset.Tool) ([]*toolset.Tool, error) {
		return nil, errors.New("bad")
	}
	nilTool := func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		return append(tools, nil), nil
	}
	tests := []struct {
		name string
		src  toolset.Source
		want string
	}{
		{"function fails", toolset.Wrap(newCompSource("Tickets", "a"), failing), "Wrapped(Tickets): bad"},
		{"named", toolset.Wrap(newCompSource("Tickets", "a"), failing).WithName("Audited"), "Audited(Tickets): bad"},
		{"a name twice", toolset.Wrap(newCompSource("Tickets", "a"), dup),
			`tool name conflict: "a" contributed by: Wrapped(Tickets), Wrapped(Tickets)`},
		{"a nil tool", toolset.Wrap(newCompSource("Tickets", "a"), nilTool), "Wrapped(Tickets): returned a nil tool"},
		{"nil source", toolset.Wrap(nil, nil), "Wrapped(<nil>): source is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := tt.src.Tools(context.Background(), nil)
			is.True(err != nil)
			is.Equal(err.Error(), tt.want)
		})
	}
}
