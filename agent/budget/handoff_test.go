package budget_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
	"github.com/typeshift-go/typeshift/storage"
)

// named is an agent of the given name on gpt-4.1-mini, whose calls may write 1000 tokens.
type named struct {
	agent.Agent
	name string
}

func (a *named) Declare() {
	a.WithName(a.name)
	a.WithModel("openai", "gpt-4.1-mini")
	a.WithMaxTokens(1000)
}

// TestHandoffKeepsTheRunsBudget hands a run from one agent to another under a budget: the run keeps one place and
// one run window across both agents, so the second agent's call is refused when the two together would pass the
// run's limit, and the handed-off run's spend is whole once it ends.
func TestHandoffKeepsTheRunsBudget(t *testing.T) {
	eachStore(t, handoffKeepsTheRunsBudget)
}

func handoffKeepsTheRunsBudget(t *testing.T, store storage.Store) {
	for i, tc := range []struct {
		name    string
		doc     string
		refused bool
	}{
		{"within", `{"run": {"tokens": 10000}, "live_runs": 1}`, false},
		{"past the run's limit", `{"run": {"tokens": 2000}}`, true}, // 1100 spent by the first, 1000+ reserved by the second
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			m := budget.New(&budget.Options{Store: store.(storage.Budgeter)})
			tenant := fmt.Sprint("t", i)
			putBudget(t, store, tenant, tc.doc)
			usage := chat.Usage{InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100}
			billingModel := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				r := chattest.Text("paid")
				r.Usage = usage
				return r, nil
			})
			billing, err := agent.NewHost(&named{name: "billing"}, agent.Config{Client: billingModel, Store: store, Meter: m})
			is.NoErr(err)
			frontModel := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				r := chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))
				r.Usage = usage
				return r, nil
			})
			front, err := agent.NewHost(&named{name: "front"}, agent.Config{Client: frontModel, Store: store, Meter: m,
				Handoffs: []agent.Handoff{{To: billing}}})
			is.NoErr(err)

			res, err := front.Run(ctx, agent.Text("was it paid?"), agent.SettingsID(tenant), agent.Conversation(fmt.Sprint("c", i)))
			u, uerr := m.Usage(ctx, tenant, fmt.Sprint("c", i))
			is.NoErr(uerr)
			is.Equal(u.LiveRuns, int64(0)) // the run's place is free once it ended
			is.Equal(u.Reserved, storage.BudgetSpend{})
			if tc.refused {
				var ex *budget.ExceededError
				is.True(errors.As(err, &ex))
				is.Equal(ex.Window, storage.WindowRun)
				is.Equal(ex.Used, int64(1100)) // the first agent's call counts in the run's window
				is.Equal(u.Windows[0].Spent.Tokens, int64(1100))
				return
			}
			is.NoErr(err)
			is.Equal(res.Text(), "paid")
			is.Equal(res.Usage.TotalTokens, int64(2200))
			is.Equal(u.Windows[0].Spent.Tokens, int64(2200))
			is.Equal(u.Windows[2].Spent.Tokens, int64(2200)) // the conversation's window
		})
	}
}

// TestHandoffRoundTrips counts what a handed-off run of two model calls (one per agent) sends to Postgres with
// and without a budget: the budget adds its two reservations and nothing for the handoff or the end.
func TestHandoffRoundTrips(t *testing.T) {
	pg := streambench.OpenPostgres(t, nil)
	limit := int64(1) << 40
	meter := budget.New(&budget.Options{Store: pg.Store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: &limit}}})
	is := is.New(t)
	count := func(m agent.Meter, tenant string) streambench.Counts {
		billing, err := agent.NewHost(&named{name: "billing"}, agent.Config{Client: chattest.FuncModel(
			func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				return chattest.Text("paid"), nil
			}),
			Store: pg.Store, Meter: m})
		is.NoErr(err)
		front, err := agent.NewHost(&named{name: "front"}, agent.Config{Client: chattest.FuncModel(
			func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				return chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`)), nil
			}), Store: pg.Store, Meter: m, Handoffs: []agent.Handoff{{To: billing}}})
		is.NoErr(err)
		var d streambench.Counts
		for i := range 2 { // the first run prepares what the store prepares once
			before := pg.Counter.Settle(20*time.Millisecond, time.Second)
			res, err := front.Run(t.Context(), agent.Text("paid?"), agent.SettingsID(tenant), agent.Conversation(fmt.Sprint("c", i)))
			is.NoErr(err)
			is.Equal(res.Agent, "billing")
			d = pg.Counter.Counts().Sub(before)
		}
		return d
	}
	without := count(nil, "none")
	with := count(meter, "budget")
	t.Logf("round trips without a budget %d, with %d", without.Tx, with.Tx)
	is.Equal(with.Tx-without.Tx, int64(2))
	u, err := meter.Usage(t.Context(), "budget", "")
	is.NoErr(err)
	is.Equal(u.LiveRuns, int64(0))
}
