package agenthttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// nodeClients is the directory of the Node test project that holds the real clients.
const nodeClients = "testdata/node"

// node runs a script of the Node test project against the handler and decodes what it prints. Without Node or
// the project's packages the test is skipped, saying how to run it; under CI=true it fails instead.
func node(t *testing.T, e *env, script string, out any) {
	t.Helper()
	how := "to run the tests with the real AG-UI and AI SDK clients: install Node 18 or later, then run `npm ci` in agent/agenthttp/" + nodeClients
	bin, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeClients, "node_modules", "@ag-ui", "client"))
	}
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeClients, "node_modules", "ai"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; %s", err, how)
		}
		t.Skipf("%v; %s", err, how)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, script, e.srv.URL, tokenA)
	cmd.Dir = nodeClients
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s\n%s", script, err, stderr.String(), e.logs.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s printed %s: %v\n%s", script, stdout.String(), err, stderr.String())
	}
}

func TestAGUIClient(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())
	var got struct {
		ThreadID string `json:"threadId"`
		First    struct {
			Types   []string          `json:"types"`
			Events  []json.RawMessage `json:"events"`
			Failure *string           `json:"failure"`
		} `json:"first"`
		Interrupts []struct {
			ID         string `json:"id"`
			Reason     string `json:"reason"`
			ToolCallID string `json:"toolCallId"`
		} `json:"interrupts"`
		Second struct {
			Types   []string          `json:"types"`
			Events  []json.RawMessage `json:"events"`
			Failure *string           `json:"failure"`
		} `json:"second"`
		PendingAfter int `json:"pendingAfter"`
	}
	node(t, e, "agui.mjs", &got)
	is.Equal(got.First.Failure, nil)
	is.Equal(got.First.Types[0], "RUN_STARTED")
	is.True(slices.Contains(got.First.Types, "TOOL_CALL_START"))
	is.True(slices.Contains(got.First.Types, "TOOL_CALL_ARGS"))
	is.True(slices.Contains(got.First.Types, "STATE_SNAPSHOT"))
	is.Equal(got.First.Types[len(got.First.Types)-1], "RUN_FINISHED")
	is.Equal(len(got.Interrupts), 1) // the client saw the pending approval as an interrupt
	is.Equal(got.Interrupts[0].Reason, "tool_approval")
	is.Equal(got.Interrupts[0].ToolCallID, "call-close-4711")
	is.True(!slices.Contains(got.First.Types, "TOOL_CALL_RESULT")) // nothing ran before the answer

	is.Equal(got.Second.Failure, nil)
	is.True(slices.Contains(got.Second.Types, "TOOL_CALL_RESULT")) // the tool's result
	is.True(slices.Contains(got.Second.Types, "TEXT_MESSAGE_CONTENT"))
	is.Equal(got.Second.Types[len(got.Second.Types)-1], "RUN_FINISHED")
	is.Equal(got.PendingAfter, 0)
	tk, _, _ := e.desk.Get(context.Background(), 4711)
	is.Equal(tk.Status, tickets.StatusClosed)
	is.True(e.entries(tenantA, got.ThreadID) > 0) // the thread is the tenant's conversation
}

func TestAISDKClient(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())
	type part struct {
		Type       string          `json:"type"`
		Text       string          `json:"text"`
		ToolName   string          `json:"toolName"`
		ToolCallID string          `json:"toolCallId"`
		State      string          `json:"state"`
		Input      json.RawMessage `json:"input"`
		Output     json.RawMessage `json:"output"`
		Approval   *struct {
			ID string `json:"id"`
		} `json:"approval"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	var got struct {
		ChatID string `json:"chatId"`
		First  struct {
			Message message  `json:"message"`
			Errors  []string `json:"errors"`
		} `json:"first"`
		Second struct {
			Message message  `json:"message"`
			Errors  []string `json:"errors"`
		} `json:"second"`
	}
	node(t, e, "aisdk.mjs", &got)
	is.Equal(len(got.First.Errors), 0)
	is.Equal(got.First.Message.Role, "assistant")
	var tool *part
	for i, p := range got.First.Message.Parts {
		if p.Type == "dynamic-tool" {
			tool = &got.First.Message.Parts[i]
		}
	}
	is.True(tool != nil)
	is.Equal(tool.ToolName, "close_ticket")
	is.Equal(tool.State, "approval-requested") // the client saw the pending approval
	is.True(tool.Approval != nil && tool.Approval.ID != "")
	is.Equal(string(tool.Input), `{"number":4711,"reason":"fixed"}`)

	is.Equal(len(got.Second.Errors), 0)
	var result *part
	text := ""
	for i, p := range got.Second.Message.Parts {
		if p.Type == "dynamic-tool" && p.ToolCallID == "call-close-4711" {
			result = &got.Second.Message.Parts[i]
		}
		if p.Type == "text" {
			text += p.Text
		}
	}
	is.True(result != nil)
	is.Equal(result.State, "output-available") // the tool's result
	is.True(strings.HasPrefix(text, "Done"))
	tk, _, _ := e.desk.Get(context.Background(), 4711)
	is.Equal(tk.Status, tickets.StatusClosed)
	is.True(e.entries(tenantA, got.ChatID) > 0)
}
