package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// refunder is the agent the HTTP tests run in the background: it asks to refund, then says what came of it.
type refunder struct{ agent.Agent }

func (a *refunder) Declare() { a.WithName("Refunder"); a.WithInstructions("You refund invoices.") }

type bgEnv struct {
	*env
	m       *background.Manager
	refunds *atomic.Int32
}

// newBackgroundEnv serves the desk agent with a Manager whose one delegate asks for approval of a refund; the
// delegate's model waits for release when told to.
func newBackgroundEnv(t *testing.T, store storage.Store, release chan struct{}) *bgEnv {
	t.Helper()
	refunds := &atomic.Int32{}
	refund := &toolset.Tool{Name: "refund", Description: "Refunds an invoice.", ID: "test.refund", RequiresApproval: true,
		Schema: json.RawMessage(`{"type":"object"}`), State: &toolset.State{},
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			refunds.Add(1)
			return json.RawMessage(`"refunded"`), nil
		}}
	model := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		if strings.Contains(msgs[0].Text(), "slow") {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if last := msgs[len(msgs)-1]; last.Role == chat.RoleTool {
			return chattest.Text("refund: " + string(last.Parts[0].(chat.ToolResult).Result) + last.Parts[0].(chat.ToolResult).Error), nil
		}
		return chattest.Calls(chattest.Call("r1", "refund", `{"invoice":12}`)), nil
	})
	delegate, err := agent.NewHost(&refunder{}, agent.Config{Client: model, Store: store, Tools: []toolset.Source{toolset.List{refund}}})
	if err != nil {
		t.Fatal(err)
	}
	m := background.New(background.NewLocalQueue(store, ""), background.Options{})
	e := newEnv(t, store, func(cfg *agent.Config, o *agenthttp.Options) {
		cfg.Tools = append(cfg.Tools, m.Tools(delegate))
		o.Background = m
	})
	m.Register(e.host)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Work(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return &bgEnv{env: e, m: m, refunds: refunds}
}

// start enqueues a background run of Refunder for conv of tenant, as the start tool would.
func (e *bgEnv) start(tenant, conv, task string) string {
	e.t.Helper()
	id := "bg_" + strings.ReplaceAll(conv+task, " ", "_")
	job := background.Job{ID: id, SettingsID: tenant, Agent: "Refunder", Task: task,
		Caller: background.Caller{Agent: "Desk", ConversationID: conv, CallID: "c1"}, Created: time.Now()}
	if err := e.m.Queue().Enqueue(context.Background(), job, 0); err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *bgEnv) waitStatus(tenant, id string, want background.Status) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := e.m.State(context.Background(), tenant, id)
		if err == nil && st.Status == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("background run %s: %v %v, want %s", id, st.Status, err, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitReport waits until conv holds n steering entries.
func (e *bgEnv) waitReport(tenant, conv string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		entries, _ := e.store.LoadAll(context.Background(), tenant, conv)
		got := 0
		for _, en := range entries {
			if en.Type == storage.EntrySteering {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("waited 30s for %d reports in %s, have %d", n, conv, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A background run's approval request is a pending request of the caller's conversation over the native API,
// answered as any other; its state and its cancellation are the tenant's alone.
func TestBackgroundRunsOverHTTP(t *testing.T) {
	stores(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		e := newBackgroundEnv(t, store, release)
		conv := e.create(tokenA, "hello").ConversationID
		id := e.start(tenantA, conv, "Refund invoice 12.")
		e.waitStatus(tenantA, id, background.StatusWaiting)
		e.waitReport(tenantA, conv, 1) // the report holds the conversation for a moment: answer after it

		var run struct {
			ID, Status, Agent string
			Caller            string `json:"caller_conversation_id"`
		}
		resp := e.do(req{method: "GET", path: "/background/" + id, token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		resp.json(t, &run)
		is.Equal(run.Status, "waiting")
		is.Equal(run.Caller, conv)

		// Another tenant: the handle is no handle, for reading and for cancelling.
		is.Equal(e.do(req{method: "GET", path: "/background/" + id, token: tokenB}).status, http.StatusNotFound)
		is.Equal(e.do(req{method: "POST", path: "/background/" + id + "/cancel", token: tokenB}).status, http.StatusNotFound)
		is.Equal(e.do(req{method: "GET", path: "/background/bg_none", token: tokenA}).status, http.StatusNotFound)

		// The request is pending in the caller's conversation, and answered there.
		var c struct {
			Pending []struct{ ID, Tool string } `json:"pending"`
		}
		resp = e.do(req{method: "GET", path: "/conversations/" + conv, token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		resp.json(t, &c)
		is.Equal(len(c.Pending), 1)
		is.Equal(c.Pending[0].Tool, "background_approval")
		// Another tenant cannot answer it.
		resp = e.do(req{method: "POST", path: "/conversations/" + conv + "/runs", token: tokenB,
			body: map[string]any{"approvals": []map[string]any{{"request_id": c.Pending[0].ID, "approved": true}}}})
		is.True(resp.status >= 400)
		// A forged id is refused.
		resp = e.do(req{method: "POST", path: "/conversations/" + conv + "/runs", token: tokenA,
			body: map[string]any{"approvals": []map[string]any{{"request_id": "approval_000000000000000000000000", "approved": true}}}})
		is.True(resp.status >= 400)
		is.Equal(e.refunds.Load(), int32(0))

		resp = e.do(req{method: "POST", path: "/conversations/" + conv + "/runs", token: tokenA,
			body: map[string]any{"approvals": []map[string]any{{"request_id": c.Pending[0].ID, "approved": true}}}})
		is.Equal(resp.status, http.StatusOK)
		e.waitStatus(tenantA, id, background.StatusSucceeded)
		e.waitReport(tenantA, conv, 2)
		is.Equal(e.refunds.Load(), int32(1))
		// Replayed: refused, and nothing runs again.
		resp = e.do(req{method: "POST", path: "/conversations/" + conv + "/runs", token: tokenA,
			body: map[string]any{"approvals": []map[string]any{{"request_id": c.Pending[0].ID, "approved": true}}}})
		is.True(resp.status >= 400)
		is.Equal(e.refunds.Load(), int32(1))

		// Cancelling a running one over the API.
		slow := e.start(tenantA, conv, "slow refund")
		e.waitStatus(tenantA, slow, background.StatusRunning)
		resp = e.do(req{method: "POST", path: "/background/" + slow + "/cancel", token: tokenA})
		is.Equal(resp.status, http.StatusAccepted)
		e.waitStatus(tenantA, slow, background.StatusCancelled)
		resp = e.do(req{method: "GET", path: "/background/" + slow, token: tokenA})
		resp.json(t, &run)
		is.Equal(run.Status, "cancelled")
	})
}

// Without a Manager the routes are not found.
func TestBackgroundRoutesWithoutManager(t *testing.T) {
	e := newEnv(t, memory.New())
	is.New(t).Equal(e.do(req{method: "GET", path: "/background/bg_1", token: tokenA}).status, http.StatusNotFound)
}

// Over AG-UI the surfaced request is an interrupt of the thread like any other: a resume answers it.
func TestBackgroundApprovalOverAGUI(t *testing.T) {
	stores(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		e := newBackgroundEnv(t, store, release)
		post := func(body any) response {
			return e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA, body: body, header: map[string]string{"Accept": "text/event-stream"}})
		}
		user := func(text string) map[string]any {
			return map[string]any{"id": "m-" + text, "role": "user", "content": text}
		}
		resp := post(map[string]any{"threadId": "t-bg", "runId": "r-1", "messages": []any{user("hello")}})
		is.Equal(resp.status, http.StatusOK)

		id := e.start(tenantA, "t-bg", "Refund invoice 12.")
		e.waitStatus(tenantA, id, background.StatusWaiting)
		e.waitReport(tenantA, "t-bg", 1)
		cs, err := e.host.LoadConversation(context.Background(), tenantA, "t-bg")
		is.NoErr(err)
		is.Equal(len(cs.Pending), 1)

		resp = post(map[string]any{"threadId": "t-bg", "runId": "r-2", "messages": []any{user("hello")},
			"resume": []any{map[string]any{"interruptId": cs.Pending[0].ID, "status": "resolved"}}})
		is.Equal(resp.status, http.StatusOK)
		e.waitStatus(tenantA, id, background.StatusSucceeded)
		is.Equal(e.refunds.Load(), int32(1))
		e.waitReport(tenantA, "t-bg", 2)
	})
}
