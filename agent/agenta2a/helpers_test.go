package agenta2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// desk is the agent the tests serve: the tickets toolset, whose close_ticket needs approval.
type desk struct{ agent.Agent }

func (a *desk) Declare() {
	a.WithName("Desk")
	a.WithInstructions("You help with support tickets.")
	a.WithModel("test", "desk-1").Configurable()
	agent.Use[*tickets.Tickets](a)
}

// model is the offline model of the tests. It reads the last message: after tool results it reports them; for
// "close N" it closes ticket N (which waits for approval); for "search WORDS" it searches; for "wait" it blocks until release is closed (or its
// context ends); otherwise it echoes the text in a few streamed pieces.
type model struct {
	release chan struct{}
	waiting chan struct{}
}

var closeRE = regexp.MustCompile(`^close (\d+)`)

func (m *model) respond(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	last := msgs[len(msgs)-1]
	if last.Role == chat.RoleTool {
		var b strings.Builder
		for _, p := range last.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				if r.Error != "" {
					fmt.Fprintf(&b, "The call failed: %s ", r.Error)
				} else {
					fmt.Fprintf(&b, "Done: %s ", r.Result)
				}
			}
		}
		return chattest.Text(strings.TrimSpace(b.String())), nil
	}
	text := last.Text()
	switch {
	case closeRE.MatchString(text):
		n := closeRE.FindStringSubmatch(text)[1]
		return chattest.Calls(chattest.Call("call-close-"+n, "close_ticket", `{"number":`+n+`,"reason":"fixed"}`)), nil
	case strings.HasPrefix(text, "search "):
		q, _ := json.Marshal(strings.TrimPrefix(text, "search "))
		return chattest.Calls(chattest.Call("call-search", "search_tickets", `{"query":`+string(q)+`}`)), nil
	case strings.HasPrefix(text, "wait"):
		select {
		case m.waiting <- struct{}{}:
		default:
		}
		select {
		case <-m.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return chattest.Text("Waited: " + text), nil
	}
	files := 0
	for _, p := range last.Parts {
		if _, ok := p.(chat.File); ok {
			files++
		}
	}
	if files > 0 {
		return chattest.Text(fmt.Sprintf("You said: %s, with %d file(s)", text, files)), nil
	}
	return chattest.Text("You said: " + text), nil
}

// The tenants of the tests and the tokens that authenticate them.
const (
	tokenA  = "token-a"
	tokenB  = "token-b"
	tenantA = "tenant-a"
	tenantB = "tenant-b"
)

// authenticate is the tests' authentication, the same as agenthttp's tests: a bearer token names a tenant.
func authenticate(r *http.Request) (agenthttp.Principal, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer " + tokenA:
		return agenthttp.Principal{SettingsID: tenantA, User: "alice"}, nil
	case "Bearer " + tokenB:
		return agenthttp.Principal{SettingsID: tenantB, User: "bob"}, nil
	}
	return agenthttp.Principal{}, agenthttp.ErrUnauthenticated
}

// env is an A2A handler (beside agenthttp's, on one mux) over the desk agent, on one store.
type env struct {
	t     testing.TB
	store storage.Store
	host  *agent.Host
	model *model
	desk  *tickets.MemoryClient
	calls *counting
	srv   *httptest.Server
	logs  *bytes.Buffer
}

// newEnv serves the desk agent on store; desk, when not nil, is the tickets of another instance to share.
func newEnv(t testing.TB, store storage.Store, shared *tickets.MemoryClient) *env {
	t.Helper()
	if shared == nil {
		shared = tickets.NewMemoryClient(tickets.SampleTickets()...)
	}
	e := &env{t: t, store: store, model: &model{release: make(chan struct{}), waiting: make(chan struct{}, 16)}, desk: shared,
		logs: &bytes.Buffer{}}
	e.calls = &counting{MemoryClient: shared}
	host, err := agent.NewHost(&desk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: e.calls}},
		Client:   chattest.FuncModel(e.model.respond),
		Store:    store,
		LeaseTTL: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.host = host
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: e.logs}, nil))
	native, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{Authenticate: authenticate, Store: store, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	a2aHandler, err := agenta2a.New(host, agenta2a.Options{Authenticate: authenticate, Store: store, Logger: log,
		Description: "Answers questions about support tickets.", MaxBodyBytes: 64 << 10, Poll: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", native))
	mux.Handle("/a2a/", http.StripPrefix("/a2a", a2aHandler))
	e.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		e.releaseWaits()
		e.srv.Close()
	})
	return e
}

// counting counts the tickets the agent closes: the executions of the tool that needs approval.
type counting struct {
	*tickets.MemoryClient
	closes atomic.Int64
}

func (c *counting) Close(ctx context.Context, number int, reason string) error {
	c.closes.Add(1)
	return c.MemoryClient.Close(ctx, number, reason)
}

// releaseWaits lets the model's waiting calls go on.
func (e *env) releaseWaits() {
	select {
	case <-e.model.release:
	default:
		close(e.model.release)
	}
}

// endpoint is the A2A endpoint's URL.
func (e *env) endpoint() string { return e.srv.URL + "/a2a/" }

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// client is the official Go SDK's client, from the served card, as the tenant of token.
func (e *env) client(token string) *a2aclient.Client {
	e.t.Helper()
	ctx := context.Background()
	card, err := agentcard.NewResolver(http.DefaultClient).Resolve(ctx, e.srv.URL+"/a2a")
	if err != nil {
		e.t.Fatalf("resolving the card: %v", err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(&http.Client{Transport: bearer{token}}))
	if err != nil {
		e.t.Fatalf("client: %v", err)
	}
	return c
}

// rpc posts a raw JSON-RPC body as the tenant of token and returns the HTTP status and the decoded answer.
func (e *env) rpc(token, body string) (int, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.endpoint(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		e.t.Fatalf("decoding %d %s: %v", resp.StatusCode, b, err)
	}
	return resp.StatusCode, out
}

// send sends text as a new task, or in a context, blocking, and returns the task.
func send(t testing.TB, c *a2aclient.Client, contextID string, parts ...a2a.Part) *a2a.Task {
	t.Helper()
	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	msg.ContextID = contextID
	res, err := c.SendMessage(context.Background(), &a2a.MessageSendParams{Message: msg})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("send returned %T", res)
	}
	return task
}

// approval is the data part that answers a request.
func approval(requestID string, approved bool, extra ...any) a2a.Part {
	a := map[string]any{"requestId": requestID, "approved": approved}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i].(string)] = extra[i+1]
	}
	return a2a.DataPart{Data: map[string]any{agenta2a.DataApproval: a}}
}

// requestOf returns the approval request an input-required task's status holds.
func requestOf(t testing.TB, task *a2a.Task) map[string]any {
	t.Helper()
	if task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil {
		t.Fatalf("task %s is %s, not waiting for input", task.ID, task.Status.State)
	}
	for _, p := range task.Status.Message.Parts {
		if d, ok := p.(a2a.DataPart); ok {
			if r, ok := d.Data[agenta2a.DataApprovalRequest].(map[string]any); ok {
				return r
			}
		}
	}
	t.Fatalf("no approval request in %+v", task.Status.Message)
	return nil
}

// answerTask sends approval parts to a task, blocking.
func answerTask(c *a2aclient.Client, task *a2a.Task, parts ...a2a.Part) (*a2a.Task, error) {
	msg := a2a.NewMessageForTask(a2a.MessageRoleUser, task, parts...)
	res, err := c.SendMessage(context.Background(), &a2a.MessageSendParams{Message: msg})
	if err != nil {
		return nil, err
	}
	tk, ok := res.(*a2a.Task)
	if !ok {
		return nil, fmt.Errorf("send returned %T", res)
	}
	return tk, nil
}

// closed reports whether the tickets' ticket n is closed.
func (e *env) closed(n int) bool {
	tk, _, _ := e.desk.Get(context.Background(), n)
	return tk.Status == tickets.StatusClosed
}

// entries returns the stored entries of a tenant's conversation.
func (e *env) entries(settingsID, id string) []storage.Entry {
	e.t.Helper()
	en, err := e.store.LoadAll(context.Background(), settingsID, id)
	if err != nil {
		e.t.Fatalf("loading %s: %v", id, err)
	}
	return en
}

// lockedWriter serialises the log lines of concurrent requests.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// openPostgresPair opens a Postgres store on a fresh, migrated schema, and a function that opens another, with a
// pool of its own, on the same schema: another instance, as far as the database can tell.
func openPostgresPair(t testing.TB) (*postgres.Store, func() *postgres.Store) {
	t.Helper()
	_, cfg := pgtest.Schema(t)
	open := func() *pgxpool.Pool {
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
		if err != nil {
			t.Fatalf("opening a pool: %v", err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	store := func(pool *pgxpool.Pool) *postgres.Store {
		s, err := postgres.New(context.Background(), pool, nil)
		if err != nil {
			t.Fatalf("opening the store: %v", err)
		}
		t.Cleanup(s.Close)
		return s
	}
	pool := open()
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		t.Fatalf("migrating: %v", err)
	}
	return store(pool), func() *postgres.Store { return store(open()) }
}

// stores runs f on the memory store and on Postgres.
func stores(t *testing.T, f func(t *testing.T, s storage.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) {
		s, _ := openPostgresPair(t)
		f(t, s)
	})
}
