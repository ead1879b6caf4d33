package agenthttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
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
// "close N" it closes ticket N (which waits for approval), for "big N" it answers N times 64 KiB of text, for "get N" it reads ticket N, for "plan TEXT" it
// presents TEXT as its plan (exit_plan_mode), for "search WORDS" it searches, for "wait" it blocks
// until release is closed (or its context ends), "wait big N" then answers as "big N" does, and otherwise it echoes the text.
type model struct {
	mu      sync.Mutex
	release chan struct{} // closed to let a waiting call go on
	waiting chan struct{} // receives when a call starts waiting
}

func newModel() *model {
	return &model{release: make(chan struct{}), waiting: make(chan struct{}, 16)}
}

var closeRE = regexp.MustCompile(`^close (\d+)`)

// bigWord is a word of the model's big answers: 64 KiB, streamed as one update each.
var bigWord = strings.Repeat("x", 64<<10-1) + " "

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
	case strings.HasPrefix(text, "think "):
		return &chat.Response{FinishReason: chat.FinishStop, Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "anthropic", Text: "The printer needs toner.", Signature: "sig-think"},
			chat.Text{Text: "Order toner for floor 3."}}}}}, nil
	case strings.HasPrefix(text, "triage nonsense"), strings.HasPrefix(text, "Your answer was not accepted"):
		return chattest.Text(`{"decision": "close", "priority": "soon"}`), nil // every time: the answer is never accepted
	case strings.HasPrefix(text, "triage "):
		return chattest.Text(verdictJSON), nil
	case strings.HasPrefix(text, "big "):
		n, _ := strconv.Atoi(strings.TrimPrefix(text, "big "))
		return chattest.Text(strings.Repeat(bigWord, n)), nil
	case strings.HasPrefix(text, "get "):
		return chattest.Calls(chattest.Call("call-get", "get_ticket", `{"number":`+strings.TrimPrefix(text, "get ")+`}`)), nil
	case strings.HasPrefix(text, "plan "):
		q, _ := json.Marshal(strings.TrimPrefix(text, "plan "))
		return chattest.Calls(chattest.Call("call-plan", agent.ExitPlanModeTool, `{"plan":`+string(q)+`}`)), nil
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
		if n, err := strconv.Atoi(strings.TrimPrefix(text, "wait big ")); err == nil {
			return chattest.Text(strings.Repeat(bigWord, n)), nil
		}
		// A tool call, so that the run makes another model call, which takes in steering sent meanwhile.
		return chattest.Calls(chattest.Call("call-wait", "search_tickets", `{"query":"printer"}`)), nil
	}
	return chattest.Text("You said: " + text), nil
}

// env is a handler over the desk agent, on one store.
type env struct {
	t       testing.TB
	store   storage.Store
	host    *agent.Host
	model   *model
	desk    *tickets.MemoryClient
	handler http.Handler
	srv     *httptest.Server
	logs    *bytes.Buffer
}

// The tenants of the tests and the tokens that authenticate them.
const (
	tokenA  = "token-a"
	tokenB  = "token-b"
	tenantA = "tenant-a"
	tenantB = "tenant-b"
)

// authenticate is the tests' authentication: a bearer token names a tenant.
func authenticate(r *http.Request) (agenthttp.Principal, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer " + tokenA:
		return agenthttp.Principal{SettingsID: tenantA, User: "alice"}, nil
	case "Bearer " + tokenB:
		return agenthttp.Principal{SettingsID: tenantB, User: "bob"}, nil
	}
	return agenthttp.Principal{}, agenthttp.ErrUnauthenticated
}

type envOption func(*agent.Config, *agenthttp.Options)

func newEnv(t testing.TB, store storage.Store, options ...envOption) *env {
	t.Helper()
	return newEnvOf(t, store, &desk{}, options...)
}

// newEnvOf is newEnv serving the agent d, which must be named Desk as desk is.
func newEnvOf(t testing.TB, store storage.Store, d agent.Declarer, options ...envOption) *env {
	t.Helper()
	e := &env{t: t, store: store, model: newModel(), desk: tickets.NewMemoryClient(tickets.SampleTickets()...),
		logs: &bytes.Buffer{}}
	cfg := agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: e.desk}},
		Client:   chattest.FuncModel(e.model.respond),
		Store:    store,
		LeaseTTL: 5 * time.Second,
	}
	opts := agenthttp.Options{
		Authenticate: authenticate,
		Store:        store,
		Descriptions: map[string]string{"Desk": "Answers questions about support tickets."},
		Logger:       slog.New(slog.NewTextHandler(&lockedWriter{w: e.logs}, nil)),
		MaxBodyBytes: 64 << 10,
	}
	for _, o := range options {
		o(&cfg, &opts)
	}
	host, err := agent.NewHost(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.host = host
	h, err := agenthttp.New([]*agent.Host{host}, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.handler = h
	e.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		select {
		case <-e.model.release:
		default:
			close(e.model.release)
		}
		e.srv.Close()
	})
	return e
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

// openPostgres opens a Postgres store on a fresh, migrated schema. The store's constructor is called here only.
func openPostgres(t testing.TB) *postgres.Store {
	t.Helper()
	s, _ := openPostgresPair(t)
	return s
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
		s, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
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
	t.Run("postgres", func(t *testing.T) { f(t, openPostgres(t)) })
}

// response is an answer of the handler, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// problem decodes a problem answer and checks its content type.
func (r response) problem(t testing.TB) agenthttp.Problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q of %d %s", ct, r.status, r.body)
	}
	var p agenthttp.Problem
	r.json(t, &p)
	return p
}

// req is a request of a test.
type req struct {
	method, path string
	token        string
	body         any // a string is sent as it is; anything else as JSON
	header       map[string]string
	// timeout, when set, bounds the request: for a stream that should not have been opened.
	timeout time.Duration
}

// do sends a request to the handler and reads the answer.
func (e *env) do(rq req) response {
	e.t.Helper()
	var body io.Reader
	var sent []byte
	switch b := rq.body.(type) {
	case nil:
	case string:
		sent = []byte(b)
	case []byte:
		sent = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		sent = data
	}
	if rq.body != nil {
		body = bytes.NewReader(sent)
	}
	ctx := context.Background()
	if rq.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rq.timeout)
		defer cancel()
	}
	r, err := http.NewRequestWithContext(ctx, rq.method, e.srv.URL+rq.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if rq.token != "" {
		r.Header.Set("Authorization", "Bearer "+rq.token)
	}
	for k, v := range rq.header {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	resp, err := e.srv.Client().Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil && !(rq.timeout > 0 && errors.Is(err, context.DeadlineExceeded)) {
		e.t.Fatal(err)
	}
	out := response{status: resp.StatusCode, header: resp.Header, body: data}
	checkOpenAPI(e.t, r, sent, out)
	return out
}

// event is one Server-Sent Event.
type event struct {
	id, name string
	data     string
}

// events parses an event stream.
func events(t *testing.T, body []byte) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func names(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.name
	}
	return out
}

// runResult is what a native run answers.
type runResult struct {
	ConversationID string `json:"conversation_id"`
	Agent          string `json:"agent"`
	Text           string `json:"text"`
	Pending        []struct {
		ID        string          `json:"id"`
		CallID    string          `json:"call_id"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"pending"`
	Mode  string `json:"mode"`
	Usage struct {
		TotalTokens int64 `json:"total_tokens"`
	} `json:"usage"`
}

// create starts a conversation of the token's tenant with text, and returns its first run's result.
func (e *env) create(token, text string) runResult {
	e.t.Helper()
	resp := e.do(req{method: "POST", path: "/conversations", token: token, body: map[string]any{"text": text}})
	if resp.status != http.StatusCreated {
		e.t.Fatalf("creating a conversation: %d %s", resp.status, resp.body)
	}
	var res runResult
	resp.json(e.t, &res)
	return res
}

// entries returns the number of stored entries of a tenant's conversation, 0 when it has none.
func (e *env) entries(tenant, id string) int {
	e.t.Helper()
	list, err := e.store.LoadAll(context.Background(), tenant, id)
	if errors.Is(err, storage.ErrNotFound) {
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return len(list)
}

var _ = is.New

// newServer serves h on loopback until the test ends.
func newServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// decodeEvent decodes an event's data.
func decodeEvent(t testing.TB, ev event, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(ev.data), v); err != nil {
		t.Fatalf("decoding the %s event %s: %v", ev.name, ev.data, err)
	}
}

// discard is a logger that writes nothing.
var discard = slog.New(slog.NewTextHandler(io.Discard, nil))
