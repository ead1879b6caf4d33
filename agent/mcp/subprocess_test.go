package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// childFlag, among the arguments of the test binary, makes it the MCP server of serveChild. It is an argument,
// not an environment variable, so that the server starts under any environment, the minimal one included.
const childFlag = "-typeshift-mcp-child"

// serveChild serves, over stdio, a tool that reports the process's environment and one that kills the process
// in the middle of its call.
func serveChild() {
	server := sdk.NewServer(&sdk.Implementation{Name: "child", Version: "v1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "env", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, map[string][]string, error) {
			return nil, map[string][]string{"env": os.Environ()}, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "die", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	_ = server.Run(context.Background(), &sdk.StdioTransport{})
}

func childCommand(t *testing.T) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(exe, "-test.run=^$", childFlag)
}

func childEnv(t *testing.T, srv *mcp.Server) []string {
	t.Helper()
	tools, err := srv.Tools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var env *toolset.Tool
	for _, tool := range tools {
		if tool.Name == "env" {
			env = tool
		}
	}
	res, err := env.Call(t.Context(), &toolset.Call{})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Env []string }
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	return out.Env
}

// TestSubprocessEnvironment checks that a subprocess server starts with PATH and HOME only, plus what the caller
// passes, so that it never sees the service's secrets.
func TestSubprocessEnvironment(t *testing.T) {
	t.Setenv("TYPESHIFT_TEST_SECRET", "s3cret")
	t.Setenv("HOME", "/home/test")
	tests := []struct {
		name    string
		env     func() []string // nil: the cmd's Env is left nil
		want    []string
		notWant []string
	}{
		{"by default", nil, []string{"HOME=/home/test", "PATH=" + os.Getenv("PATH")}, []string{"TYPESHIFT_TEST_SECRET=s3cret"}},
		{"with what the caller passes", func() []string { return mcp.MinimalEnv("GITHUB_TOKEN=t0ken") },
			[]string{"HOME=/home/test", "GITHUB_TOKEN=t0ken"}, []string{"TYPESHIFT_TEST_SECRET=s3cret"}},
		{"the whole environment, when asked for", os.Environ, []string{"TYPESHIFT_TEST_SECRET=s3cret"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			cmd := childCommand(t)
			if tt.env != nil {
				cmd.Env = tt.env()
			}
			srv, err := mcp.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
			is.NoErr(err)
			defer srv.Close()
			env := childEnv(t, srv)
			for _, w := range tt.want {
				is.True(slices.Contains(env, w))
			}
			for _, nw := range tt.notWant {
				is.True(!slices.Contains(env, nw))
			}
			if tt.env == nil {
				is.Equal(len(env), 2) // PATH and HOME, nothing else
			}
		})
	}
}

// TestServerDiesMidCall runs an agent whose MCP server exits in the middle of a call. The model reads that the
// server stopped and that the call's outcome is unknown; the run goes on without the server's tools.
func TestServerDiesMidCall(t *testing.T) {
	is := is.New(t)
	srv, err := mcp.Connect(t.Context(), &sdk.CommandTransport{Command: childCommand(t)}, nil)
	is.NoErr(err)
	defer srv.Close()
	before, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	m := &model{steps: [][]chat.Part{{toolCall("c1", "die", `{}`)}, {chat.Text{Text: "the server is gone"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)
	res, err := h.Run(t.Context(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(res.Text(), "the server is gone")
	got := m.results()["c1"].Error
	if !strings.Contains(got, `MCP server "child" stopped while tool "die" ran`) {
		t.Fatalf("the model read %q", got)
	}
	is.Equal(m.offered[0], []string{"die", "env"})

	// The host lists a run's tools when the run starts: the next run is offered none of the server's.
	m.steps = [][]chat.Part{{chat.Text{Text: "no tools"}}}
	_, err = h.Run(t.Context(), agent.Text("again"))
	is.NoErr(err)
	is.Equal(len(m.offered[2]), 0)

	// A call to one of its tools, held from before, fails at once.
	_, err = byName(t, before, "env").Call(t.Context(), &toolset.Call{})
	is.True(err != nil)
}
