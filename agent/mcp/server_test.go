package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// byName returns the tool named name, failing the test when there is none.
func byName(t *testing.T, tools []*toolset.Tool, name string) *toolset.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q among %v", name, names(tools))
	return nil
}

func names(tools []*toolset.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestToolsDescribeServerTools(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	srv := f.connect(t, nil)
	is.Equal(srv.Name(), "files") // the name the server reports
	is.Equal(srv.SourceName(), `MCP("files")`)

	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "fail", "search", "wait"})

	tests := []struct {
		name, description string
		readOnly          bool
		approval          bool
	}{
		{"search", "Search the files.", true, false},
		{"delete_file", "Delete a file.", false, true},
		{"fail", "Always fails.", true, false},
		{"wait", "Waits until cancelled.", false, true},
	}
	for _, tt := range tests {
		tool := byName(t, tools, tt.name)
		is.Equal(tool.Description, tt.description)
		is.Equal(tool.ReadOnly, tt.readOnly)         // read-only from the readOnlyHint annotation
		is.Equal(tool.RequiresApproval, tt.approval) // approval for what is not read-only
		is.Equal(tool.ID, "mcp:files:"+tt.name)
		is.True(tool.State != nil)
		is.True(tool.Invoke != nil)
	}

	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	is.NoErr(json.Unmarshal(byName(t, tools, "search").Schema, &schema))
	is.Equal(schema.Type, "object")
	is.Equal(schema.Properties["query"]["type"], "string")
	is.Equal(schema.Properties["query"]["description"], "the text to find")
	is.Equal(schema.Required, []string{"query"})

	// A tool without parameters still has an object schema with properties.
	is.NoErr(json.Unmarshal(byName(t, tools, "wait").Schema, &schema))
	is.Equal(schema.Type, "object")
	is.True(schema.Properties != nil)
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name  string
		opts  *mcp.Options
		tools []string
		ro    []string // tools expected read-only
		ask   []string // tools expected to require approval
	}{
		{
			name:  "include by name",
			opts:  &mcp.Options{Name: "github", Include: mcp.Names("search", "delete_file")},
			tools: []string{"delete_file", "search"},
			ro:    []string{"search"},
			ask:   []string{"delete_file"},
		},
		{
			name:  "approval for none",
			opts:  &mcp.Options{Name: "github", RequiresApproval: func(*sdk.Tool, bool) bool { return false }},
			tools: []string{"delete_file", "fail", "search", "wait"},
			ro:    []string{"fail", "search"},
		},
		{
			name:  "approval for all",
			opts:  &mcp.Options{Name: "github", RequiresApproval: func(*sdk.Tool, bool) bool { return true }},
			tools: []string{"delete_file", "fail", "search", "wait"},
			ro:    []string{"fail", "search"},
			ask:   []string{"delete_file", "fail", "search", "wait"},
		},
		{
			name:  "read-only decided by the host",
			opts:  &mcp.Options{Name: "github", ReadOnly: func(t *sdk.Tool) bool { return t.Name == "search" }},
			tools: []string{"delete_file", "fail", "search", "wait"},
			ro:    []string{"search"},
			ask:   []string{"delete_file", "fail", "wait"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := newFixture(t).connect(t, tt.opts)
			tools, err := srv.Tools(t.Context(), nil)
			is.NoErr(err)
			is.Equal(names(tools), tt.tools)
			var ro, ask []string
			for _, tool := range tools {
				is.Equal(tool.ID, "mcp:github:"+tool.Name) // the name in the options
				if tool.ReadOnly {
					ro = append(ro, tool.Name)
				}
				if tool.RequiresApproval {
					ask = append(ask, tool.Name)
				}
			}
			slices.Sort(ro)
			slices.Sort(ask)
			is.Equal(ro, tt.ro)
			is.Equal(ask, tt.ask)
		})
	}
}

func TestInvoke(t *testing.T) {
	f := newFixture(t)
	srv := f.connect(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		want       string // the result's JSON
		err        string // the error's message, when the call fails
		argErr     bool   // the error is an *ArgumentError, and the server was not asked
		toolErr    bool   // the error is a *ToolError
	}{
		{tool: "search", args: `{"query":"report"}`, want: `{"hits":["report.txt"]}`},
		{tool: "delete_file", args: `{"path":"a.txt"}`, want: `"deleted a.txt\n1 file removed"`},
		{tool: "fail", args: `{"path":"b.txt"}`, err: "no such file: b.txt", toolErr: true},
		{tool: "search", args: `{"query":5}`, err: "query", toolErr: true}, // the SDK's server validates
		{tool: "search", args: `[1]`, err: "arguments must be an object, got array", argErr: true},
		{tool: "search", args: `"report"`, err: "arguments must be an object, got string", argErr: true},
		{tool: "search", args: `{"query":`, err: "invalid JSON at offset 9: unexpected end of input", argErr: true},
		{tool: "search", args: `{"query":"a"} {}`, err: "unexpected data after the top-level value", argErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			is := is.New(t)
			before := f.calls.Load()
			got, err := byName(t, tools, tt.tool).Call(t.Context(), &toolset.Call{ID: "c1", Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if tt.err == "" {
				is.NoErr(err)
				is.Equal(string(got), tt.want)
				return
			}
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.err)) // the message names the problem
			var aerr *toolset.ArgumentError
			is.Equal(errors.As(err, &aerr), tt.argErr)
			var terr *mcp.ToolError
			is.Equal(errors.As(err, &terr), tt.toolErr)
			if tt.toolErr {
				is.Equal(terr.Tool, tt.tool)
				is.Equal(terr.Server, "files")
			}
			if tt.argErr {
				is.Equal(f.calls.Load(), before) // bad arguments never reach the server
			}
		})
	}
}

func TestInvokeWithoutArguments(t *testing.T) {
	is := is.New(t)
	srv := newFixture(t).connect(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	for _, args := range []string{"", "null", " {} "} {
		// The SDK's server checks the arguments against the schema, which requires "path".
		_, err := byName(t, tools, "delete_file").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(args)})
		var terr *mcp.ToolError
		is.True(errors.As(err, &terr)) // the server ran and answered; no argument error of ours
		is.True(strings.Contains(terr.Message, "path"))
	}
}

func TestInvokeCancellation(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	srv := f.connect(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := byName(t, tools, "wait").Call(ctx, &toolset.Call{Arguments: json.RawMessage(`{}`)})
		done <- err
	}()
	waitFor(t, f.started, "the tool to start")
	cancel()
	select {
	case err := <-done:
		is.True(errors.Is(err, context.Canceled))
		is.True(strings.Contains(err.Error(), `tool "wait" of MCP server "files"`))
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return after its context was cancelled")
	}
	waitFor(t, f.ended, "the server's handler to see the cancellation")
}

func TestInvokeTimeout(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	srv := f.connect(t, &mcp.Options{Timeout: 20 * time.Millisecond})
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	_, err = byName(t, tools, "wait").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{}`)})
	is.True(errors.Is(err, context.DeadlineExceeded))
	is.Equal(err.Error(), `tool "wait" of MCP server "files" timed out after 20ms: context deadline exceeded`)
	waitFor(t, f.ended, "the server's handler to see the cancellation")
}

func TestInvokeRemovedTool(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	srv := f.connect(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	f.server.RemoveTools("delete_file")
	_, err = byName(t, tools, "delete_file").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{"path":"a"}`)})
	is.True(err != nil)
	is.True(strings.HasPrefix(err.Error(), `calling tool "delete_file" of MCP server "files": `))
}

func TestListChanged(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	changed := make(chan struct{}, 4)
	srv := f.connect(t, &mcp.Options{Client: &sdk.ClientOptions{
		// The caller's handler still runs, after the list was dropped.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}})

	first, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	again, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(f.lists.Load(), int64(1)) // the list is cached
	is.Equal(names(again), names(first))
	state := byName(t, first, "search").State

	sdk.AddTool(f.server, &sdk.Tool{Name: "rename", Description: "Rename a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, in pathIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "renamed " + in.Path}}}, nil, nil
		})
	waitFor(t, changed, "notifications/tools/list_changed")
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(f.lists.Load(), int64(2)) // listed again after the notification
	is.Equal(names(tools), []string{"delete_file", "fail", "rename", "search", "wait"})
	is.Equal(byName(t, tools, "search").State, state) // a tool keeps its State across refreshes
	got, err := byName(t, tools, "rename").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{"path":"x"}`)})
	is.NoErr(err)
	is.Equal(string(got), `"renamed x"`)

	f.server.RemoveTools("fail", "wait")
	waitFor(t, changed, "notifications/tools/list_changed")
	tools, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "rename", "search"})

	srv.Invalidate()
	_, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(f.lists.Load(), int64(4)) // Invalidate drops the list too
}

func TestToolsOverForeignSession(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	session := f.session(t)
	srv := mcp.Tools(session, &mcp.Options{Name: "fs"})
	is.Equal(srv.Session(), session)

	for i := range 3 {
		tools, err := srv.Tools(t.Context(), nil)
		is.NoErr(err)
		is.Equal(len(tools), 4)
		is.Equal(f.lists.Load(), int64(i+1)) // listed every turn: no notification reaches it
	}
	f.server.RemoveTools("wait")
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "fail", "search"})

	got, err := byName(t, tools, "search").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{"query":"q"}`)})
	is.NoErr(err)
	is.Equal(string(got), `{"hits":["q.txt"]}`)
	is.Equal(byName(t, tools, "search").ID, "mcp:fs:search")

	is.NoErr(srv.Close())                    // does not end a session it did not start
	is.NoErr(session.Ping(t.Context(), nil)) // still open
}

func TestPrefixKeepsIDAndServerName(t *testing.T) {
	is := is.New(t)
	srv := newFixture(t).connect(t, &mcp.Options{Name: "fs"})
	tools, err := toolset.Prefix(srv, "fs").Tools(t.Context(), nil)
	is.NoErr(err)
	tool := byName(t, tools, "fs_search")
	is.Equal(tool.ID, "mcp:fs:search")
	got, err := tool.Call(t.Context(), &toolset.Call{Name: "fs_search", Arguments: json.RawMessage(`{"query":"q"}`)})
	is.NoErr(err)
	is.Equal(string(got), `{"hits":["q.txt"]}`) // called by the server's own name
}

func TestBadServerSchema(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	// The SDK's server refuses bad schemas, so the listing is rewritten on its way out, as a faulty server
	// would send it.
	f.server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				for _, tool := range lr.Tools {
					if tool.Name == "fail" {
						c := *tool
						c.InputSchema = json.RawMessage(`{"type":"string"}`)
						*tool = c
					}
				}
			}
			return res, err
		}
	})
	srv := f.connect(t, &mcp.Options{Name: "fs"})
	_, err := srv.Tools(t.Context(), nil)
	var serr *mcp.SchemaError
	is.True(errors.As(err, &serr))
	is.Equal(serr.Tool, "fail")
	is.Equal(err.Error(), `MCP server "fs": tool "fail": the input schema has type "string", not "object"`)

	// Leaving the tool out offers the others.
	srv = f.connect(t, &mcp.Options{Name: "fs", Include: func(t *sdk.Tool) bool { return t.Name != "fail" }})
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "search", "wait"})
}

func TestClosedSession(t *testing.T) {
	is := is.New(t)
	srv := newFixture(t).connect(t, &mcp.Options{Name: "fs"})
	is.NoErr(srv.Close())
	_, err := srv.Tools(t.Context(), nil)
	is.True(err != nil)
	is.True(strings.HasPrefix(err.Error(), `listing the tools of MCP server "fs": `))
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestConnectWithoutTransport(t *testing.T) {
	is := is.New(t)
	s, err := mcp.Connect(context.Background(), nil, nil)
	is.True(s == nil)
	is.True(err != nil && strings.Contains(err.Error(), "transport is nil"))
}
