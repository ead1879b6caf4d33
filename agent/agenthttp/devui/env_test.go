package devui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/agenthttp/devui"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval/evalhttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// desk is the agent the browser tests serve: the tickets toolset, whose close_ticket needs approval.
type desk struct{ agent.Agent }

func (a *desk) Declare() {
	a.WithName("Desk")
	a.WithInstructions("You help with support tickets.")
	a.WithModel("test", "desk-1").Configurable()
	agent.Use[*tickets.Tickets](a)
}

// hostileTitle is a ticket title that would run script if a page parsed it as HTML.
const hostileTitle = `<img src=x onerror="document.body.dataset.pwned='yes'">`

// model is the offline model of the browser tests. It reads the last message and answers by rules:
//
//   - after tool results, it reports them, listing the tickets a search found (or, when the conversation was
//     steered, the steering it took in);
//   - "close N" closes ticket N (which waits for approval); "search WORDS" searches; "twice" reads two tickets
//     in one response, after some text;
//   - "slow" streams two words, then waits until release is closed before the rest;
//   - "wait" waits until release is closed, then searches, so that the run makes another model call that takes
//     in the steering sent meanwhile;
//   - in plan mode it reads the ticket named, then proposes a plan with exit_plan_mode;
//   - otherwise it echoes the text.
type model struct {
	release chan struct{}
	waiting chan struct{} // receives when a call starts waiting
	once    sync.Once
}

func newModel() *model { return &model{release: make(chan struct{}), waiting: make(chan struct{}, 16)} }

func (m *model) free() { m.once.Do(func() { close(m.release) }) }

// wait blocks until release (or the end of ctx), telling waiting first.
func (m *model) wait(ctx context.Context) error {
	select {
	case m.waiting <- struct{}{}:
	default:
	}
	select {
	case <-m.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var numberRE = regexp.MustCompile(`\d+`)

func (m *model) respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	last := msgs[len(msgs)-1]
	steered := ""
	for _, msg := range msgs {
		if msg.Role == chat.RoleUser && strings.HasPrefix(msg.Text(), "steer: ") {
			steered = strings.TrimPrefix(msg.Text(), "steer: ")
		}
	}
	if steered != "" && (last.Role == chat.RoleTool || strings.HasPrefix(last.Text(), "steer: ")) {
		return chattest.Text("Taking in the steering: " + steered), nil
	}
	if strings.HasPrefix(strings.TrimPrefix(last.Text(), "slow "), "triage ") {
		return chattest.Text(verdictJSON), nil
	}
	if strings.HasPrefix(last.Text(), "think") {
		return &chat.Response{FinishReason: chat.FinishStop, Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "anthropic", Text: "The picture shows a printer.", Signature: "sig-devui"},
			chat.Text{Text: "It is a printer."}}}}}, nil
	}
	if last.Role == chat.RoleTool {
		var b strings.Builder
		for _, p := range last.Parts {
			r, ok := p.(chat.ToolResult)
			if !ok {
				continue
			}
			switch {
			case r.Error != "":
				fmt.Fprintf(&b, "The call failed: %s. ", r.Error)
			case offered(opts, agent.ExitPlanModeTool) && strings.Contains(string(r.Result), `"number"`):
				var tk tickets.Ticket
				_ = json.Unmarshal(r.Result, &tk)
				plan, _ := json.Marshal(map[string]string{"plan": fmt.Sprintf("1. Close ticket %d (%s).\n2. Tell the customer.", tk.Number, tk.Title)})
				return chattest.Calls(chattest.Call("call-plan", agent.ExitPlanModeTool, string(plan))), nil
			default:
				var found []tickets.Ticket
				if json.Unmarshal(r.Result, &found) == nil && len(found) > 0 {
					list := make([]string, len(found))
					for i, tk := range found {
						list[i] = fmt.Sprintf("#%d %q (%s)", tk.Number, tk.Title, tk.Status)
					}
					fmt.Fprintf(&b, "Found %d: %s. ", len(found), strings.Join(list, ", "))
					continue
				}
				fmt.Fprintf(&b, "Done: %s ", r.Result)
			}
		}
		return chattest.Text(strings.TrimSpace(b.String())), nil
	}
	text := last.Text()
	n := numberRE.FindString(text)
	switch {
	case offered(opts, agent.ExitPlanModeTool) && n != "":
		return chattest.Calls(chattest.Call("call-read-"+n, "get_ticket", `{"number":`+n+`}`)), nil
	case strings.HasPrefix(text, "close ") && n != "":
		return chattest.Calls(chattest.Call("call-close-"+n, "close_ticket", `{"number":`+n+`,"reason":"fixed"}`)), nil
	case strings.HasPrefix(text, "please read ") && n != "":
		return chattest.Calls(chattest.Call("call-read-"+n, "get_ticket", `{"number":`+n+`}`)), nil
	case strings.HasPrefix(text, "search "):
		q, _ := json.Marshal(strings.TrimPrefix(text, "search "))
		return chattest.Calls(chattest.Call("call-search", "search_tickets", `{"query":`+string(q)+`}`)), nil
	case text == "twice":
		resp := chattest.Calls(chattest.Call("call-a", "get_ticket", `{"number":4711}`), chattest.Call("call-b", "get_ticket", `{"number":4712}`))
		resp.Messages[0].Parts = append([]chat.Part{chat.Text{Text: "Reading two tickets at once."}}, resp.Messages[0].Parts...)
		return resp, nil
	case text == "wait":
		if err := m.wait(ctx); err != nil {
			return nil, err
		}
		return chattest.Calls(chattest.Call("call-wait", "search_tickets", `{"query":"printer"}`)), nil
	}
	return chattest.Text("You said: " + text), nil
}

func offered(opts *chat.Options, name string) bool {
	for _, t := range opts.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// client is the model as a chat.Client: FuncModel's, except that "slow" streams in two halves with a wait
// between them.
type client struct {
	m *model
	chattest.FuncModel
}

func (c client) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	last := msgs[len(msgs)-1]
	if last.Role == chat.RoleUser && strings.HasPrefix(last.Text(), "slow triage ") {
		return c.slowAnswer(ctx)
	}
	if last.Role != chat.RoleUser || last.Text() != "slow" && last.Text() != "slow think" {
		return c.FuncModel.Stream(ctx, msgs, opts)
	}
	return func(yield func(chat.Update, error) bool) {
		text := func(s string) chat.Update {
			return chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: s}}}
		}
		if last.Text() == "slow think" {
			// Reasoning first, streamed in two pieces, the second ending its block with the signature.
			if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Reasoning{Provider: "anthropic", Text: "Pondering "}}}, nil) ||
				!yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Reasoning{Provider: "anthropic", Text: "the printer.", Signature: "sig-slow"}}}, nil) {
				return
			}
		}
		if !yield(text("Streaming "), nil) || !yield(text("slowly "), nil) {
			return
		}
		if err := c.m.wait(ctx); err != nil {
			yield(chat.Update{}, err)
			return
		}
		if !yield(text("and done."), nil) {
			return
		}
		yield(chat.Update{Role: chat.RoleAssistant, FinishReason: chat.FinishStop,
			Parts: []chat.Part{chat.UsagePart{Usage: chat.Usage{InputTokens: 21, OutputTokens: 4, TotalTokens: 25}}}}, nil)
	}
}

// tenantHeader names the tests' tenant: the UI sends it, and the handler reads it (development authentication).
const tenantHeader = "X-Test-Tenant"

// env serves the API under /api/ and the UI under /dev/ on loopback, over one store.
type env struct {
	t     *testing.T
	store storage.Store
	model *model
	srv   *httptest.Server
	cut   *cutter
	// answers makes the agent triageDesk, which answers with a verdict (answers_test.go).
	answers bool
}

func newEnv(t *testing.T, store storage.Store) *env {
	t.Helper()
	return newEnvWith(t, store, false)
}

// newEnvWith is newEnv, serving triageDesk when answers is set.
func newEnvWith(t *testing.T, store storage.Store, answers bool) *env {
	t.Helper()
	e := &env{t: t, store: store, model: newModel(), cut: &cutter{}, answers: answers}
	e.cut.next = e.api(store)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", e.cut))
	mux.Handle("/dev/", http.StripPrefix("/dev", devui.Handler(devui.Options{API: "/api", TenantHeader: tenantHeader, EvalCases: true})))
	e.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		e.model.free()
		e.srv.CloseClientConnections()
		e.srv.Close()
	})
	return e
}

// testPrices prices the desk's model at 1 and 2 dollars per million input and output tokens.
var testPrices, _ = budget.DefaultPrices().With(budget.Price{Provider: "test", Model: "desk-1", Input: 1, Output: 2})

// api returns an API handler over the desk agent on store, with the env's model.
func (e *env) api(store storage.Store) http.Handler {
	e.t.Helper()
	tix := tickets.NewMemoryClient(append(tickets.SampleTickets(),
		tickets.Ticket{Number: 4800, Title: hostileTitle, Status: tickets.StatusOpen, Opened: time.Now()})...)
	cfg := agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tix}},
		Client:   client{m: e.model, FuncModel: chattest.FuncModel(e.model.respond)},
		Store:    store,
		LeaseTTL: 5 * time.Second,
		Meter:    budget.New(&budget.Options{Prices: testPrices}),
	}
	var d agent.Declarer = &desk{}
	if e.answers {
		d = &triageDesk{}
	}
	host, err := agent.NewHost(d, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	api, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{
		Store:                   store,
		DevelopmentTenantHeader: tenantHeader,
		Descriptions:            map[string]string{"Desk": "Answers questions about support tickets."},
		EvalCase:                evalhttp.Case,
		Logger:                  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return api
}

// instance serves the API on another server over store: another instance, when store is another Postgres
// store on the same schema.
func (e *env) instance(store storage.Store) string {
	e.t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", e.api(store)))
	srv := httptest.NewServer(mux)
	e.t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// ui returns the address of the UI for a tenant, opening the conversation id when it is not empty.
func (e *env) ui(tenant, id string) string {
	u := e.srv.URL + "/dev/?tenant=" + tenant
	if id != "" {
		u += "#c=" + id
	}
	return u
}

// call sends a request to the API as tenant and returns the answer's status, ETag and body.
func (e *env) call(tenant, method, path, body string, header map[string]string) (int, string, string) {
	e.t.Helper()
	return e.callAt(e.srv.URL, tenant, method, path, body, header)
}

// callAt is call on the server at base.
func (e *env) callAt(base, tenant, method, path, body string, header map[string]string) (int, string, string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, base+"/api"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	r.Header.Set(tenantHeader, tenant)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("ETag"), string(data)
}

// stores runs f on the memory store and on Postgres (skipped without TYPESHIFT_TEST_DATABASE_URL, failed under
// CI=true).
func stores(t *testing.T, f func(t *testing.T, s storage.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) { f(t, openPostgres(t)) })
}

// openPostgres opens a Postgres store on a fresh, migrated schema.
func openPostgres(t *testing.T) *postgres.Store {
	t.Helper()
	s, _ := openPostgresPair(t)
	return s
}

// openPostgresPair opens a Postgres store on a fresh, migrated schema, and a function that opens another, with a
// pool of its own, on the same schema: another instance, as far as the database can tell.
func openPostgresPair(t *testing.T) (*postgres.Store, func() *postgres.Store) {
	t.Helper()
	_, cfg := pgtest.Schema(t)
	migrated := false
	open := func() *postgres.Store {
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
		if err != nil {
			t.Fatalf("opening a pool: %v", err)
		}
		t.Cleanup(pool.Close)
		if !migrated {
			if _, err := postgres.Migrate(context.Background(), pool); err != nil {
				t.Fatalf("migrating: %v", err)
			}
			migrated = true
		}
		s, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
		if err != nil {
			t.Fatalf("opening the store: %v", err)
		}
		t.Cleanup(s.Close)
		return s
	}
	return open(), open
}

func memoryStore() storage.Store { return memory.New() }

// slowAnswer streams verdictJSON up to the comma after its first field, then waits for release before the rest.
func (c client) slowAnswer(ctx context.Context) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		text := func(s string) chat.Update {
			return chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: s}}}
		}
		cut := strings.Index(verdictJSON, ",") + 1
		if !yield(text(verdictJSON[:cut]), nil) {
			return
		}
		if err := c.m.wait(ctx); err != nil {
			yield(chat.Update{}, err)
			return
		}
		if !yield(text(verdictJSON[cut:]), nil) {
			return
		}
		yield(chat.Update{Role: chat.RoleAssistant, FinishReason: chat.FinishStop,
			Parts: []chat.Part{chat.UsagePart{Usage: chat.Usage{InputTokens: 30, OutputTokens: 20, TotalTokens: 50}}}}, nil)
	}
}
