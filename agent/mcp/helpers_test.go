package mcp_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"the text to find"`
}

type searchOut struct {
	Hits []string `json:"hits"`
}

type pathIn struct {
	Path string `json:"path"`
}

// fixture is an in-process MCP server with four tools, connected through in-memory transports.
type fixture struct {
	server *sdk.Server
	// lists and calls count the tools/list and tools/call requests the server has received.
	lists, calls atomic.Int64
	// started receives a value when the blocking tool starts, and ended when its context ends.
	started, ended chan struct{}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return buildFixture()
}

// buildFixture makes the fixture's server; TestMain calls it too, outside any test.
func buildFixture() *fixture {
	f := &fixture{started: make(chan struct{}, 1), ended: make(chan struct{}, 1)}
	f.server = sdk.NewServer(&sdk.Implementation{Name: "files", Version: "v1"}, nil)
	f.server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch method {
			case "tools/list":
				f.lists.Add(1)
			case "tools/call":
				f.calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	sdk.AddTool(f.server, &sdk.Tool{
		Name:        "search",
		Description: "Search the files.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, searchOut, error) {
		return nil, searchOut{Hits: []string{in.Query + ".txt"}}, nil
	})
	destructive := true
	sdk.AddTool(f.server, &sdk.Tool{
		Name:        "delete_file",
		Description: "Delete a file.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in pathIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "deleted " + in.Path},
			&sdk.TextContent{Text: "1 file removed"},
		}}, nil, nil
	})
	sdk.AddTool(f.server, &sdk.Tool{
		Name:        "fail",
		Description: "Always fails.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in pathIn) (*sdk.CallToolResult, any, error) {
		return nil, nil, errors.New("no such file: " + in.Path)
	})
	sdk.AddTool(f.server, &sdk.Tool{
		Name:        "wait",
		Description: "Waits until cancelled.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		f.started <- struct{}{}
		<-ctx.Done()
		f.ended <- struct{}{}
		return nil, nil, ctx.Err()
	})
	return f
}

// connect connects a Server to the fixture with Connect, closing both when the test ends.
func (f *fixture) connect(t *testing.T, opts *mcp.Options) *mcp.Server {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	srv, err := mcp.Connect(t.Context(), ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// session connects a plain SDK client session to the fixture.
func (f *fixture) session(t *testing.T) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
