package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// serveStdioEnv makes the test binary an MCP server over stdio, for TestCommandTransport.
const serveStdioEnv = "TYPESHIFT_MCP_TEST_SERVE_STDIO"

// serveToolsetEnv makes the test binary serve the served test toolset over stdio with [mcp.ServeStdio].
const serveToolsetEnv = "TYPESHIFT_MCP_TEST_SERVE_TOOLSET"

func TestMain(m *testing.M) {
	if slices.Contains(os.Args, childFlag) {
		serveChild()
		os.Exit(0)
	}
	if os.Getenv(serveStdioEnv) == "1" {
		f := buildFixture()
		if err := f.server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(serveToolsetEnv) == "1" {
		if err := mcp.ServeStdio(context.Background(), newServed().src, mcp.Principal{}, nil); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCommandTransport runs the server as a subprocess speaking over stdin and stdout: this test binary, started
// again in server mode.
func TestCommandTransport(t *testing.T) {
	is := is.New(t)
	exe, err := os.Executable()
	is.NoErr(err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), serveStdioEnv+"=1")
	srv, err := mcp.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	is.NoErr(err)
	defer srv.Close()
	is.Equal(srv.Name(), "files")

	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "fail", "search", "wait"})
	got, err := byName(t, tools, "search").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{"query":"q"}`)})
	is.NoErr(err)
	is.Equal(string(got), `{"hits":["q.txt"]}`)
	is.NoErr(srv.Close())
}

// TestStreamableHTTP reaches the server over HTTP on the loopback interface, list_changed notifications included.
func TestStreamableHTTP(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	web := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return f.server }, nil))
	defer web.Close()

	changed := make(chan struct{}, 1)
	srv, err := mcp.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: web.URL, MaxRetries: -1},
		&mcp.Options{Name: "web", Client: &sdk.ClientOptions{
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
		}})
	is.NoErr(err)
	defer srv.Close()

	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 4)
	_, err = byName(t, tools, "fail").Call(t.Context(), &toolset.Call{Arguments: json.RawMessage(`{"path":"p"}`)})
	is.True(err != nil)
	is.Equal(err.Error(), "no such file: p")

	f.server.RemoveTools("fail")
	waitFor(t, changed, "notifications/tools/list_changed over HTTP")
	tools, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(names(tools), []string{"delete_file", "search", "wait"})
}
