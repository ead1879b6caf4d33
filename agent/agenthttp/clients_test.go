package agenthttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
)

// nodeClients is the directory of the Node test project that holds the real clients.
const nodeClients = "testdata/node"

// nodeCommand starts a script of the Node test project against the handler. Without Node or the project's
// packages the test is skipped, saying how to run it; under CI=true it fails instead.
func nodeCommand(t *testing.T, e *env, script string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
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
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{script, e.srv.URL, tokenA}, args...)...)
	cmd.Dir = nodeClients
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// nodeResult waits for a started script and decodes what it printed.
func nodeResult(t *testing.T, e *env, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, out any) {
	t.Helper()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node %s: %v\n%s\n%s", strings.Join(cmd.Args[1:], " "), err, stderr.String(), e.logs.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s printed %s: %v\n%s", strings.Join(cmd.Args[1:], " "), stdout.String(), err, stderr.String())
	}
}

// The flows every official client is driven through. steer marks the flow whose run takes in steering input.
var clientFlows = []struct {
	name  string
	agui  bool // AG-UI's client runs it
	aisdk bool // the AI SDK's client runs it
}{
	{name: "answer", agui: true, aisdk: true},  // a streamed answer
	{name: "triage", agui: true, aisdk: true},  // a typed answer, which the client ends with in its state
	{name: "approve", agui: true, aisdk: true}, // a call that waits for approval, then runs
	{name: "deny", agui: true, aisdk: true},    // a call that waits for approval and is denied
	{name: "always", agui: true},               // a standing approval, then a call it approves within its run
	{name: "auto", agui: true, aisdk: true},    // a call a rule approves within its run, after its request went out
	{name: "plan", agui: true, aisdk: true},    // plan mode, and its plan approved
	{name: "steer", agui: true, aisdk: true},   // a run that takes in steering input
	{name: "resume", aisdk: true},              // a second chat resumes the stream of a run under way
	{name: "error", agui: true, aisdk: true},   // a tool that fails
	{name: "refused", agui: true, aisdk: true}, // a run the server refuses before it starts
	{name: "think", agui: true, aisdk: true},   // an answer after signed reasoning, which the client sees as reasoning
}

// autoApprove approves closing ticket 4712 without asking, for the auto flow.
func autoApprove(cfg *agent.Config, _ *agenthttp.Options) {
	cfg.Rules = append(cfg.Rules, agent.RuleFor(tickets.TicketsCloseTicketID, func(_ context.Context, in tickets.CloseInput) agent.Decision {
		if in.Number == 4712 {
			return agent.Allow
		}
		return agent.Ask
	}))
}

// runClientFlow runs one flow of a script, steering the run of the steer flow while it waits, and decodes what
// the client ended with.
func runClientFlow(t *testing.T, e *env, script, flow, id string, out any) {
	t.Helper()
	cmd, stdout, stderr := nodeCommand(t, e, script, flow, id)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if flow == "steer" {
		select {
		case <-e.model.waiting:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("the run never reached its model call\n%s", stderr.String())
		}
		resp := e.do(req{method: "POST", path: "/conversations/" + id + "/steering", token: tokenA, body: map[string]any{"text": "steer: only open ones"}})
		if resp.status != http.StatusAccepted {
			t.Fatalf("steering: %d %s", resp.status, resp.body)
		}
		close(e.model.release)
	}
	nodeResult(t, e, cmd, stdout, stderr, out)
}

// item is one thing a conversation shows, in a form both a client's state and the stored conversation map to.
type item struct {
	Kind string // user, text, call, result or pending
	ID   string // a call's, result's or pending request's call id
	Name string // a call's tool
	Text string // a user's or the assistant's text, a call's arguments, a result's content
}

// compact returns s as JSON with its object keys sorted when it is JSON (Postgres keeps JSON as jsonb, which
// orders keys its own way), and s otherwise: a client's broken arguments stay visible.
func compact(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// addText appends assistant text, joined to the text just before it.
func addText(items []item, text string) []item {
	if text == "" {
		return items
	}
	if n := len(items); n > 0 && items[n-1].Kind == "text" {
		items[n-1].Text += text
		return items
	}
	return append(items, item{Kind: "text", Text: text})
}

// storedItems loads the tenant's conversation afresh, as its next run would continue it, and maps it to items:
// pending calls last, each with its request. Steering input taken in by a run is a user's item where it was
// stored, as every protocol's stream shows it.
func storedItems(t *testing.T, e *env, id string) ([]item, *agent.ConversationState) {
	t.Helper()
	st, err := e.host.LoadConversation(context.Background(), tenantA, id)
	if err != nil {
		t.Fatalf("loading %s: %v", id, err)
	}
	var items []item
	for _, m := range st.Messages {
		switch m.Role {
		case chat.RoleUser:
			items = append(items, item{Kind: "user", Text: m.Text()})
		case chat.RoleAssistant:
			for _, p := range m.Parts {
				switch p := p.(type) {
				case chat.Text:
					items = addText(items, p.Text)
				case chat.Reasoning:
					items = append(items, item{Kind: "reasoning", Text: p.Text})
				case chat.ToolCall:
					items = append(items, item{Kind: "call", ID: p.ID, Name: p.Name, Text: compact(string(p.Arguments))})
				}
			}
		case chat.RoleTool:
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok {
					content := r.Error
					if content == "" {
						content = compact(string(r.Result))
					}
					items = append(items, item{Kind: "result", ID: r.CallID, Text: content})
				}
			}
		}
	}
	for _, p := range st.Pending {
		items = append(items, item{Kind: "call", ID: p.Call.ID, Name: p.Call.Name, Text: compact(string(p.Call.Arguments))})
	}
	for _, p := range st.Pending {
		items = append(items, item{Kind: "pending", ID: p.Call.ID})
	}
	return items, st
}

// TestAGUIClientState drives AG-UI's HttpAgent through every flow and checks that the client's messages and state
// are what a fresh load of the stored conversation shows.
func TestAGUIClientState(t *testing.T) {
	for _, f := range clientFlows {
		if !f.agui {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			stores(t, func(t *testing.T, s storage.Store) {
				is := is.New(t)
				e := newClientEnv(t, s, f.name, autoApprove, func(_ *agent.Config, o *agenthttp.Options) {
					o.ClientModes = []string{agent.ModeDefault, agent.ModePlan}
				})
				id := "thread-" + f.name
				var got struct {
					Messages []struct {
						Role       string `json:"role"`
						Content    any    `json:"content"`
						ToolCallID string `json:"toolCallId"`
						ToolCalls  []struct {
							ID       string `json:"id"`
							Function struct {
								Name      string `json:"name"`
								Arguments string `json:"arguments"`
							} `json:"function"`
						} `json:"toolCalls"`
					} `json:"messages"`
					State struct {
						Mode    string            `json:"mode"`
						Pending []json.RawMessage `json:"pending"`
						Answer  *clientAnswer     `json:"answer"`
					} `json:"state"`
					Interrupts []struct {
						ToolCallID string `json:"toolCallId"`
					} `json:"interrupts"`
					Failures []string `json:"failures"`
				}
				runClientFlow(t, e, "agui.mjs", f.name, id, &got)
				var client []item
				for _, m := range got.Messages {
					text, _ := m.Content.(string)
					switch m.Role {
					case "user":
						client = append(client, item{Kind: "user", Text: text})
					case "assistant":
						client = addText(client, text)
						for _, c := range m.ToolCalls {
							client = append(client, item{Kind: "call", ID: c.ID, Name: c.Function.Name, Text: compact(c.Function.Arguments)})
						}
					case "tool":
						client = append(client, item{Kind: "result", ID: m.ToolCallID, Text: compact(text)})
					case "reasoning":
						client = append(client, item{Kind: "reasoning", Text: text})
					default:
						t.Fatalf("a %s message in the client's state", m.Role)
					}
				}
				for _, in := range got.Interrupts {
					client = append(client, item{Kind: "pending", ID: in.ToolCallID})
				}
				stored, st := storedItems(t, e, id)
				if f.name == "refused" {
					// The client keeps the message the server refused; nothing of it was stored.
					is.Equal(len(got.Failures), 1)
					stored = append(stored, item{Kind: "user", Text: "once more"})
				} else {
					is.Equal(len(got.Failures), 0) // every run of the flow ended well
				}
				if diff := cmp.Diff(stored, client); diff != "" {
					t.Fatalf("the client's state differs from the stored conversation (-stored +client):\n%s", diff)
				}
				is.Equal(got.State.Mode, st.Mode)
				is.Equal(len(got.State.Pending), len(st.Pending))
				checkAnswer(t, f.name, got.State.Answer)
				checkFlow(t, e, f.name, stored)
			})
		})
	}
}

// TestAISDKClientState drives the AI SDK's Chat through every flow and checks that the chat's messages are what
// a fresh load of the stored conversation shows.
func TestAISDKClientState(t *testing.T) {
	for _, f := range clientFlows {
		if !f.aisdk {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			stores(t, func(t *testing.T, s storage.Store) {
				is := is.New(t)
				e := newClientEnv(t, s, f.name, autoApprove)
				if f.name == "resume" {
					releaseOnResume(e)
				}
				id := "chat-" + f.name
				var got struct {
					Messages []struct {
						Role  string `json:"role"`
						Parts []struct {
							Type       string          `json:"type"`
							Text       string          `json:"text"`
							ID         string          `json:"id"`
							Data       json.RawMessage `json:"data"`
							ToolName   string          `json:"toolName"`
							ToolCallID string          `json:"toolCallId"`
							State      string          `json:"state"`
							Input      json.RawMessage `json:"input"`
							Output     json.RawMessage `json:"output"`
							ErrorText  string          `json:"errorText"`
							Approval   *struct {
								ID     string `json:"id"`
								Reason string `json:"reason"`
							} `json:"approval"`
						} `json:"parts"`
					} `json:"messages"`
					Status string   `json:"status"`
					Error  *string  `json:"error"`
					Errors []string `json:"errors"`
					// Resumed is the resume flow's chat again, as it came; First and After are its other chats: the
					// one that sent the message, and one loaded after the run ended.
					Resumed, First, After *struct {
						Messages []struct {
							Role  string            `json:"role"`
							Parts []json.RawMessage `json:"parts"`
						} `json:"messages"`
						Status string `json:"status"`
					}
				}
				runClientFlow(t, e, "aisdk.mjs", f.name, id, &got)
				var client, pending []item
				var answer *clientAnswer
				for _, m := range got.Messages {
					for _, p := range m.Parts {
						switch {
						case p.Type == "text" && m.Role == "user":
							client = append(client, item{Kind: "user", Text: p.Text})
						case p.Type == "text":
							client = addText(client, p.Text)
						case p.Type == "dynamic-tool":
							client = append(client, item{Kind: "call", ID: p.ToolCallID, Name: p.ToolName, Text: compact(string(p.Input))})
							switch p.State {
							case "output-available":
								client = append(client, item{Kind: "result", ID: p.ToolCallID, Text: compact(string(p.Output))})
							case "output-error":
								client = append(client, item{Kind: "result", ID: p.ToolCallID, Text: p.ErrorText})
							case "output-denied":
								reason := "The tool call was denied." // what the model reads without a reason
								if p.Approval != nil && p.Approval.Reason != "" {
									reason = p.Approval.Reason
								}
								client = append(client, item{Kind: "result", ID: p.ToolCallID, Text: reason})
							case "approval-requested":
								pending = append(pending, item{Kind: "pending", ID: p.ToolCallID})
							default:
								t.Fatalf("the call %s ended in the state %q", p.ToolCallID, p.State)
							}
						case p.Type == "data-steering":
							var d struct {
								Text string `json:"text"`
							}
							if err := json.Unmarshal(p.Data, &d); err != nil {
								t.Fatal(err)
							}
							client = append(client, item{Kind: "user", Text: d.Text})
						case p.Type == "data-answer":
							if answer != nil {
								t.Fatalf("a second data-answer part %s: the client keeps one per id", p.Data)
							}
							answer = &clientAnswer{}
							if err := json.Unmarshal(p.Data, answer); err != nil {
								t.Fatal(err)
							}
						case p.Type == "step-start":
						case p.Type == "reasoning":
							client = append(client, item{Kind: "reasoning", Text: p.Text})
						default:
							t.Fatalf("a %s part in the chat's state", p.Type)
						}
					}
				}
				client = append(client, pending...)
				checkAnswer(t, f.name, answer)
				stored, _ := storedItems(t, e, id)
				if f.name == "refused" {
					// The chat keeps the message the server refused, and shows the refusal; nothing of it was stored.
					is.Equal(got.Status, "error")
					is.True(got.Error != nil && strings.Contains(*got.Error, "mode"))
					stored = append(stored, item{Kind: "user", Text: "once more"})
				} else {
					is.Equal(got.Status, "ready")
					is.Equal(len(got.Errors), 0)
				}
				if diff := cmp.Diff(stored, client); diff != "" {
					t.Fatalf("the chat's state differs from the stored conversation (-stored +client):\n%s", diff)
				}
				checkFlow(t, e, f.name, stored)
				if f.name == "resume" {
					// The chat that sent the message ends as the one that resumed; the one loaded after the run
					// ended found nothing to resume and kept what it held.
					is.True(got.Resumed != nil && got.First != nil && got.After != nil)
					resumed := got.Resumed.Messages
					is.Equal(partsOf(t, got.First.Messages), partsOf(t, resumed))
					is.Equal(got.First.Status, "ready")
					is.Equal(partsOf(t, got.After.Messages), partsOf(t, resumed))
					is.Equal(got.After.Status, "ready")
				}
			})
		})
	}
}

// partsOf returns the roles and parts of a chat's messages as JSON, without the messages' ids, which each chat
// makes its own.
func partsOf(t *testing.T, messages any) string {
	t.Helper()
	raw, err := json.Marshal(messages)
	if err != nil {
		t.Fatal(err)
	}
	var ms []struct {
		Role  string          `json:"role"`
		Parts json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(raw, &ms); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// releaseOnResume serves e through a server that lets the model's waiting call go on once a resumed AI SDK
// stream (GET .../stream) has sent its first bytes, so that the run is under way while the chat resumes it. A
// test that waits again gives the model a new release channel first.
func releaseOnResume(e *env) {
	var mu sync.Mutex
	released := map[chan struct{}]bool{}
	release := func() {
		mu.Lock()
		defer mu.Unlock()
		if ch := e.model.release; !released[ch] {
			released[ch] = true
			close(ch)
		}
	}
	e.srv.Close()
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/stream") {
			w = &releasingWriter{ResponseWriter: w, release: release}
		}
		e.handler.ServeHTTP(w, r)
	}))
	e.t.Cleanup(e.srv.Close)
}

// releasingWriter calls release after its first write.
type releasingWriter struct {
	http.ResponseWriter
	release func()
}

func (w *releasingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.release()
	return n, err
}

func (w *releasingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkFlow checks that the stored conversation is the one the flow should have produced, so that a client and
// a store agreeing on the wrong thing still fails.
func checkFlow(t *testing.T, e *env, flow string, stored []item) {
	t.Helper()
	is := is.New(t)
	kinds := make([]string, len(stored))
	for i, it := range stored {
		kinds[i] = it.Kind
	}
	last := stored[len(stored)-1]
	status := func(n int) tickets.Status {
		tk, _, _ := e.desk.Get(context.Background(), n)
		return tk.Status
	}
	switch flow {
	case "answer":
		is.Equal(kinds, []string{"user", "text"})
		is.Equal(last.Text, "You said: hello there")
	case "triage":
		is.Equal(kinds, []string{"user", "text"})
		is.Equal(last.Text, verdictJSON) // the answer's text, as the model wrote it
	case "approve":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.Equal(status(4711), tickets.StatusClosed)
	case "deny":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.Equal(stored[2].Text, "not before Friday")
		is.True(status(4711) != tickets.StatusClosed)
	case "always":
		is.Equal(kinds, []string{"user", "call", "result", "text", "user", "call", "result", "text"})
		is.Equal(status(4714), tickets.StatusClosed) // no one was asked
	case "auto":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.Equal(status(4712), tickets.StatusClosed)
	case "plan":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.Equal(stored[1].Name, agent.ExitPlanModeTool)
		is.True(strings.Contains(stored[2].Text, `"approved":true`))
	case "resume":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.True(strings.HasPrefix(last.Text, "Done: ")) // the answer after the tool's result
	case "steer":
		is.Equal(kinds, []string{"user", "call", "result", "user", "text"})
		is.Equal(stored[3].Text, "steer: only open ones")
		is.Equal(last.Text, "You said: steer: only open ones") // the run read the steering input
	case "error":
		is.Equal(kinds, []string{"user", "call", "result", "text"})
		is.Equal(stored[2].Text, "no ticket 99999 exists: search for it first")
	case "refused":
		is.Equal(kinds, []string{"user", "text", "user"})
	case "think":
		is.Equal(kinds, []string{"user", "reasoning", "text"})
		is.Equal(stored[1].Text, "The printer needs toner.")
	default:
		panic(fmt.Sprintf("no check for the flow %q", flow))
	}
}

// clientAnswer is the typed answer in a client's state: AG-UI's state.answer, the AI SDK's data-answer part.
type clientAnswer struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Final bool            `json:"final"`
}

// newClientEnv is the env of a client flow: the triage flow's agent answers with a verdict.
func newClientEnv(t *testing.T, s storage.Store, flow string, options ...envOption) *env {
	if flow == "triage" {
		return newEnvOf(t, s, &triageDesk{}, options...)
	}
	return newEnv(t, s, options...)
}

// checkAnswer checks the answer a client ended with: the accepted verdict for the triage flow, none otherwise.
func checkAnswer(t *testing.T, flow string, got *clientAnswer) {
	t.Helper()
	if flow != "triage" {
		if got != nil {
			t.Fatalf("the client holds an answer %s after the %s flow, whose agent answers with text", got.Value, flow)
		}
		return
	}
	if got == nil {
		t.Fatal("the client holds no answer after the triage flow")
	}
	if got.Type != "Verdict" || !got.Final || !sameJSON(t, got.Value, []byte(verdictJSON)) {
		t.Fatalf("the client ends with the answer %+v (%s), not the accepted Verdict %s", got, got.Value, verdictJSON)
	}
}
