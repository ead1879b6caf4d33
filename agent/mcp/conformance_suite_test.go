package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/agent/mcp/internal/conformance"
	"github.com/typeshift-go/typeshift/toolset"
)

// conformanceDir is the Node project that pins the official MCP conformance suite and the Node 22 it needs
// (the npm package "node"), apart from testdata/npm, which runs on the system's Node 20.
const conformanceDir = "testdata/conformance"

// conformanceTools are the tools the suite's server scenarios call, by the names it calls them, written as any
// toolset's tools are: a JSON result, an error, progress through chat.ReportProgress, logging through
// mcp.ClientLogger.
func conformanceTools() toolset.List {
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	tool := func(name, desc string, invoke func(context.Context, *toolset.Call) (json.RawMessage, error)) *toolset.Tool {
		return &toolset.Tool{Name: name, Description: desc, Schema: obj, ID: "conformance." + name, ReadOnly: true,
			State: new(toolset.State), Invoke: invoke}
	}
	return toolset.List{
		tool("test_simple_text", "Answers with text.", func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return json.RawMessage(`"This is a simple text response for testing."`), nil
		}),
		tool("test_error_handling", "Always fails.", func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return nil, errors.New("this tool always fails, for testing")
		}),
		tool("test_tool_with_progress", "Reports its progress.", func(ctx context.Context, _ *toolset.Call) (json.RawMessage, error) {
			for i := 0; i <= 100; i += 50 {
				chat.ReportProgress(ctx, chat.Progress{Progress: float64(i), Total: 100, Message: "working"})
				time.Sleep(10 * time.Millisecond)
			}
			return json.RawMessage(`"done"`), nil
		}),
		tool("test_tool_with_logging", "Logs to the client.", func(ctx context.Context, _ *toolset.Call) (json.RawMessage, error) {
			log := mcp.ClientLogger(ctx)
			log.InfoContext(ctx, "tool execution started")
			time.Sleep(20 * time.Millisecond)
			log.InfoContext(ctx, "tool processing data")
			time.Sleep(20 * time.Millisecond)
			log.InfoContext(ctx, "tool execution completed")
			return json.RawMessage(`"done"`), nil
		}),
	}
}

// TestConformanceSuite serves conformanceTools over streamable HTTP and runs the official conformance suite's
// server scenarios against it. The scenarios of features Typeshift does not offer are listed, with the reason for
// each, in testdata/conformance/expected-failures.yml and docs/mcp.md; the suite fails on any other failure, and
// on a listed scenario that passes.
func TestConformanceSuite(t *testing.T) {
	how := "run `npm ci` in agent/mcp/" + conformanceDir
	bin, err := filepath.Abs(filepath.Join(conformanceDir, "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "conformance")); err != nil {
		missing(t, "the conformance suite is not installed: "+how)
	}
	// The tools whose results are images, audio and resources are a generated toolset, returning toolset.Content.
	h := mcp.Handler(toolset.Combine(conformanceTools(), &conformance.Media{}), func(*http.Request) (mcp.Principal, error) {
		return mcp.Principal{SettingsID: "conformance"}, nil
	}, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "conformance"), "server", "--url", srv.URL+"/mcp",
		"--expected-failures", "expected-failures.yml", "--output-dir", out)
	cmd.Dir = conformanceDir
	// The suite's own Node (22) comes first on PATH; the system's may be older.
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("conformance suite:\n%s", stdout.String())
	if err != nil {
		t.Fatalf("the conformance suite failed: %v\n%s", err, stderr.String())
	}
}
