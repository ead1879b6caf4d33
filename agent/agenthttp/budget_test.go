package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

const tokenOperator = "token-operator" // the operator, acting on tenant A

// withBudgets meters the host's runs in the store's budgets, and lets tokenOperator in as tenant A's operator.
func withBudgets(s storage.Store) envOption {
	return func(cfg *agent.Config, opts *agenthttp.Options) {
		m := budget.New(&budget.Options{Store: s.(storage.Budgeter), MaxOutput: 100})
		cfg.Meter = m
		opts.Budget = m
		opts.Authenticate = func(r *http.Request) (agenthttp.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer "+tokenOperator {
				return agenthttp.Principal{SettingsID: tenantA, User: "ops", Operator: true}, nil
			}
			return authenticate(r)
		}
	}
}

func TestBudgetOverHTTP(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s, withBudgets(s))
		typ := func(r response) string { return r.problem(t).Type[len(agenthttp.ProblemTypePrefix):] }

		// A tenant cannot write its budget, neither through the budget route nor through an agent's settings.
		resp := e.do(req{method: "PUT", path: "/budget", token: tokenA, body: map[string]any{"day": map[string]any{"tokens": 1 << 40}}})
		is.Equal(resp.status, http.StatusForbidden)
		is.Equal(typ(resp), agenthttp.ProblemOperatorOnly)
		// The operator can; a document that is no budget is refused.
		resp = e.do(req{method: "PUT", path: "/budget", token: tokenOperator, body: map[string]any{"day": map[string]any{"tokens": "many"}}})
		is.Equal(resp.status, http.StatusBadRequest)
		resp = e.do(req{method: "PUT", path: "/budget", token: tokenOperator, body: map[string]any{"day": map[string]any{"tokens": 400}, "extra": 1}})
		is.Equal(resp.status, http.StatusBadRequest)
		resp = e.do(req{method: "PUT", path: "/budget", token: tokenOperator, body: map[string]any{"day": map[string]any{"tokens": 5000}}})
		is.Equal(resp.status, http.StatusOK)

		// Runs spend it; the one that could pass it is refused with 429, Retry-After and the window.
		var refused response
		ran := 0
		for i := range 50 {
			resp = e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "hello " + strconv.Itoa(i)}})
			if resp.status != http.StatusCreated {
				refused = resp
				break
			}
			var run struct {
				Cost struct {
					Amount   float64 `json:"amount"`
					Unpriced int     `json:"unpriced_calls"`
				} `json:"cost"`
			}
			resp.json(t, &run)
			is.Equal(run.Cost.Unpriced, 1) // the test model has no price: unknown, not free
			is.Equal(run.Cost.Amount, 0.0)
			ran++
		}
		is.True(ran > 1)
		is.Equal(refused.status, http.StatusTooManyRequests)
		p := refused.problem(t)
		is.Equal(typ(refused), agenthttp.ProblemBudgetExceeded)
		is.Equal(p.Window, storage.WindowDay)
		reset := nextUTCDay(time.Now())
		is.True(p.ResetAt != nil && p.ResetAt.Equal(reset))
		secs, err := strconv.Atoi(refused.header.Get("Retry-After"))
		is.NoErr(err)
		is.True(secs > 0 && secs <= 86400+1)

		// Tenant B is not touched; tenant A reads its budget, B reads its own.
		e.create(tokenB, "hello")
		var b struct {
			Currency string `json:"currency"`
			Windows  []struct {
				Window     string `json:"window"`
				Spent      struct{ Tokens int64 }
				LeftTokens *int64 `json:"left_tokens"`
			} `json:"windows"`
		}
		resp = e.do(req{method: "GET", path: "/budget", token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		resp.json(t, &b)
		is.Equal(b.Currency, "USD")
		is.Equal(b.Windows[0].Window, "day")
		is.True(b.Windows[0].Spent.Tokens > 0 && b.Windows[0].Spent.Tokens <= 5000)
		is.True(b.Windows[0].LeftTokens != nil && *b.Windows[0].LeftTokens == 5000-b.Windows[0].Spent.Tokens)
		spentA := b.Windows[0].Spent.Tokens
		resp = e.do(req{method: "GET", path: "/budget", token: tokenB})
		resp.json(t, &b)
		is.True(b.Windows[0].Spent.Tokens > 0 && b.Windows[0].Spent.Tokens < spentA)
		is.Equal(b.Windows[0].LeftTokens, nil) // no limit
	})
}

func TestOperatorSettings(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s, withBudgets(s))
		path := "/agents/Desk/settings"
		put := func(token string, body any, header map[string]string) response {
			return e.do(req{method: "PUT", path: path, token: token, body: body, header: header})
		}
		create := map[string]string{"If-None-Match": "*"}
		typ := func(r response) string { return r.problem(t).Type[len(agenthttp.ProblemTypePrefix):] }

		for _, body := range []map[string]any{
			{"provider": "other"},
			{"fallback": []any{map[string]any{"model": "desk-big"}}},
		} {
			resp := put(tokenA, body, create)
			is.Equal(resp.status, http.StatusForbidden) // body
			is.Equal(typ(resp), agenthttp.ProblemOperatorOnly)
		}
		resp := put(tokenOperator, map[string]any{"fallback": []any{map[string]any{"model": "desk-big"}}, "model": "desk-2"}, create)
		is.Equal(resp.status, http.StatusCreated)

		// The tenant may change what is its own and send the operator's values back unchanged, but not change them
		// or drop them, nor delete the document that holds them.
		resp = put(tokenA, map[string]any{"model": "desk-3", "fallback": []any{map[string]any{"model": "desk-big"}}}, map[string]string{"If-Match": `"1"`})
		is.Equal(resp.status, http.StatusOK)
		resp = put(tokenA, map[string]any{"model": "desk-3"}, map[string]string{"If-Match": `"2"`})
		is.Equal(resp.status, http.StatusForbidden)
		resp = put(tokenA, map[string]any{"model": "desk-3", "fallback": nil}, map[string]string{"If-Match": `"2"`})
		is.Equal(resp.status, http.StatusForbidden)
		resp = e.do(req{method: "DELETE", path: path, token: tokenA, header: map[string]string{"If-Match": `"2"`}})
		is.Equal(resp.status, http.StatusForbidden)
		resp = e.do(req{method: "DELETE", path: path, token: tokenOperator, header: map[string]string{"If-Match": `"2"`}})
		is.Equal(resp.status, http.StatusNoContent)

		// Another tenant's document is its own: B creates one without operator settings.
		resp = put(tokenB, map[string]any{"model": "desk-2"}, create)
		is.Equal(resp.status, http.StatusCreated)
	})
}

// budgetNamed is an agent whose settings kind is the budget's: its settings route must not let a tenant write
// the budget through it.
type budgetNamed struct{ agent.Agent }

func (a *budgetNamed) Declare() {
	a.WithName(storage.BudgetKind)
	a.WithModel("test", "m").Configurable()
}

func TestBudgetNotWritableAsSettings(t *testing.T) {
	is := is.New(t)
	s := memory.New()
	host, err := agent.NewHost(&budgetNamed{}, agent.Config{Client: chattest.FuncModel(newModel().respond), Store: s})
	is.NoErr(err)
	var cfg agent.Config
	opts := agenthttp.Options{Store: s}
	withBudgets(s)(&cfg, &opts)
	h, err := agenthttp.New([]*agent.Host{host}, opts)
	is.NoErr(err)
	e := &env{t: t, store: s, handler: h, srv: newServer(t, h)}
	for _, tc := range []struct {
		token string
		want  int
	}{{tokenA, http.StatusForbidden}, {tokenOperator, http.StatusCreated}} {
		resp := e.do(req{method: "PUT", path: "/agents/budget/settings", token: tc.token, body: map[string]any{"model": "m2"},
			header: map[string]string{"If-None-Match": "*"}})
		is.Equal(resp.status, tc.want)
	}
	doc, err := s.GetSettings(t.Context(), tenantA, storage.BudgetKind)
	is.NoErr(err)
	is.Equal(doc.Revision, int64(1)) // only the operator's write
}

// spending gives every model call of the host 5800 tokens of usage.
func spending(cfg *agent.Config, _ *agenthttp.Options) {
	m := newModel()
	cfg.Client = chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		resp, err := m.respond(ctx, msgs, opts)
		if resp != nil {
			resp.Usage = chat.Usage{InputTokens: 5000, OutputTokens: 800, TotalTokens: 5800}
		}
		return resp, err
	})
}

// TestBudgetRefusalPerProtocol runs each protocol's request under a budget that refuses its first model call: the
// answer is a 429 problem with Retry-After, never a stream opened with 200. A refusal after the run sent
// something (a tool call, then a second call past the run's limit) stays an error in the stream. Either way the
// conversation's last entry says why the run ended.
func TestBudgetRefusalPerProtocol(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s, withBudgets(s), spending)
		putBudget := func(doc map[string]any) {
			t.Helper()
			resp := e.do(req{method: "PUT", path: "/budget", token: tokenOperator, body: doc})
			if resp.status != http.StatusOK {
				t.Fatalf("PUT /budget: %d %s", resp.status, resp.body)
			}
		}
		n := 0
		protocols := []struct {
			name string
			// send runs text in a new conversation, and returns the answer and the conversation's id.
			send func(text string) (response, string)
			// inStreamError reports whether the streamed answer ends with the run's error after what it sent.
			inStreamError func(t *testing.T, body []byte) bool
		}{
			{"json", func(text string) (response, string) {
				resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": text}})
				return resp, strings.TrimPrefix(resp.header.Get("Location"), "conversations/")
			}, nil},
			{"sse", func(text string) (response, string) {
				resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": text},
					header: map[string]string{"Accept": "text/event-stream"}})
				return resp, strings.TrimPrefix(resp.header.Get("Location"), "conversations/")
			}, func(t *testing.T, body []byte) bool {
				ns := names(events(t, body))
				return len(ns) > 1 && slices.Contains(ns[:len(ns)-1], "tool_call") && ns[len(ns)-1] == "error"
			}},
			{"agui", func(text string) (response, string) {
				n++
				id := "thread-" + strconv.Itoa(n)
				resp := e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA, header: map[string]string{"Accept": "text/event-stream"},
					body: map[string]any{"threadId": id, "runId": "r", "messages": []any{map[string]any{"id": "m", "role": "user", "content": text}}}})
				return resp, id
			}, func(t *testing.T, body []byte) bool {
				evs := aguiEvents(t, body)
				return len(evs) > 1 && evs[0]["type"] == "RUN_STARTED" && evs[len(evs)-1]["type"] == "RUN_ERROR"
			}},
			{"ui-message-stream", func(text string) (response, string) {
				n++
				id := "chat-" + strconv.Itoa(n)
				resp := e.do(req{method: "POST", path: "/agents/Desk/ui-message-stream", token: tokenA,
					body: map[string]any{"id": id, "messages": []any{userMessage(text)}}})
				return resp, id
			}, func(t *testing.T, body []byte) bool {
				cs, done := uiChunks(t, body)
				types := chunkTypes(cs)
				return done && len(types) > 1 && types[0] == "start" && slices.Contains(types, "error") && types[len(types)-1] == "finish"
			}},
		}
		lastError := func(t *testing.T, id string) string {
			t.Helper()
			all, err := s.LoadAll(t.Context(), tenantA, id)
			if err != nil || len(all) == 0 || all[len(all)-1].Type != storage.EntryRunEnd {
				t.Fatalf("the conversation %q has no end: %v %v", id, all, err)
			}
			var d struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(all[len(all)-1].Data, &d); err != nil {
				t.Fatal(err)
			}
			return d.Error
		}
		for _, p := range protocols {
			t.Run(p.name, func(t *testing.T) {
				is := is.New(t)
				// The day allows nothing: the first call is refused before anything was sent.
				putBudget(map[string]any{"day": map[string]any{"tokens": 0}})
				resp, id := p.send("hello")
				is.Equal(resp.status, http.StatusTooManyRequests)
				pr := resp.problem(t)
				is.Equal(pr.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemBudgetExceeded)
				is.Equal(pr.Window, storage.WindowDay)
				secs, err := strconv.Atoi(resp.header.Get("Retry-After"))
				is.NoErr(err)
				is.True(secs > 0 && secs <= 86400+1)
				is.True(strings.Contains(lastError(t, id), "day limit is 0 tokens")) // the refused run's end is stored

				// The run may spend 6000 tokens: its first call (a tool call) spends 5800, its second is refused.
				putBudget(map[string]any{"run": map[string]any{"tokens": 6000}})
				resp, id = p.send("get 4711")
				is.True(strings.Contains(lastError(t, id), "run limit of 6000 tokens"))
				if p.inStreamError == nil { // a JSON answer has sent nothing before its end
					is.Equal(resp.status, http.StatusTooManyRequests)
					is.Equal(resp.problem(t).Window, storage.WindowRun)
					return
				}
				is.True(resp.status == http.StatusOK || resp.status == http.StatusCreated) // the stream was opened
				is.Equal(resp.header.Get("Content-Type"), "text/event-stream")
				is.True(p.inStreamError(t, resp.body)) // the tool call went out, then the error
			})
		}
	})
}

// nextUTCDay returns the start of the UTC day after t's: when a day window resets.
func nextUTCDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
