package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// resultText returns the text of a tools/call result the inspector printed, and whether it is an error.
func resultText(t *testing.T, res map[string]any) (string, bool) {
	t.Helper()
	parts, _ := res["content"].([]any)
	var sb strings.Builder
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok && m["type"] == "text" {
			sb.WriteString(m["text"].(string))
		}
	}
	isErr, _ := res["isError"].(bool)
	return sb.String(), isErr
}

// TestInspectorStdio has the reference inspector start a served toolset as a subprocess over stdio, as an MCP
// host does: this test binary, in server mode.
func TestInspectorStdio(t *testing.T) {
	is := is.New(t)
	exe, err := os.Executable()
	is.NoErr(err)
	env := []string{serveToolsetEnv + "=1"}
	server := []string{exe, "-e", serveToolsetEnv + "=1", "--", "-test.run=^$"}

	list := inspector(t, env, append(server, "--method", "tools/list")...)
	want, err := newServed().src.Tools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	tools, _ := list["tools"].([]any)
	var names []string
	for _, raw := range tools {
		tool := raw.(map[string]any)
		names = append(names, tool["name"].(string))
		for _, w := range want {
			if w.Name == tool["name"] {
				is.Equal(canonical(t, tool["inputSchema"]), canonical(t, w.Schema)) // the generated schema, unchanged
				ann, _ := tool["annotations"].(map[string]any)
				is.Equal(ann["readOnlyHint"], w.ReadOnly)
			}
		}
	}
	is.Equal(names, []string{"search_tickets", "get_ticket", "fail", "boom"})

	tests := []struct {
		name    string
		args    []string
		isError bool
		want    string
	}{
		{"good arguments", []string{"--tool-name", "get_ticket", "--tool-arg", "number=4712"}, false, "Invoice shows the wrong address"},
		{"wrong type", []string{"--tool-name", "get_ticket", "--tool-arg", `number="x"`}, true, `"number" must be an integer`},
		{"out of range", []string{"--tool-name", "get_ticket", "--tool-arg", "number=0"}, true, "at least 1"},
		{"tool error", []string{"--tool-name", "fail"}, true, "the ticket system is down"},
		{"panic", []string{"--tool-name", "boom"}, true, `tool "boom" failed unexpectedly`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := inspector(t, env, append(append(server, "--method", "tools/call"), tt.args...)...)
			text, isErr := resultText(t, res)
			is.Equal(isErr, tt.isError)
			if !strings.Contains(text, tt.want) {
				t.Fatalf("result %q does not contain %q", text, tt.want)
			}
		})
	}
}

// TestInspectorHTTP reaches a served toolset over streamable HTTP with the reference inspector: two tenants see
// their own settings, and an approval-required tool never runs for a client that cannot be asked.
func TestInspectorHTTP(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	putLimit(t, store, "tenant-a", 1)
	putLimit(t, store, "tenant-b", 3)
	s := newServed()
	srv := httptest.NewServer(mcp.Handler(s.src, bearer, &mcp.HandlerOptions{ServeOptions: mcp.ServeOptions{
		Settings: agent.StoredSettings(store), SettingsKind: "tickets", Approval: mcp.ElicitApproval}}))
	t.Cleanup(srv.Close)
	call := func(tenant string, args ...string) (string, bool) {
		res := inspector(t, nil, append([]string{srv.URL, "--transport", "http", "--header", "Authorization: Bearer " + tenant,
			"--method", "tools/call"}, args...)...)
		return resultText(t, res)
	}
	for _, tt := range []struct {
		tenant string
		want   int
	}{{"tenant-a", 1}, {"tenant-b", 3}} {
		text, isErr := call(tt.tenant, "--tool-name", "search_tickets", "--tool-arg", `query=""`)
		is.True(!isErr)
		var found []tickets.Ticket
		is.NoErr(json.Unmarshal([]byte(text), &found))
		is.Equal(len(found), tt.want)
	}

	text, isErr := call("tenant-a", "--tool-name", "wipe")
	is.True(isErr)
	is.True(strings.Contains(text, "cannot ask for it"))
	is.Equal(s.dangerous.Load(), int64(0))
}
