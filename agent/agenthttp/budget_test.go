package agenthttp_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/budget"
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
		_, reset, _, _ := storage.BudgetWindows(time.Now())
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
