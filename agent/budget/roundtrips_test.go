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
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// callsModel answers with a tool call until the run has made calls model calls, then with text; every call uses
// 110 tokens.
func callsModel(calls int) chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		made := 0
		for _, m := range msgs {
			if m.Role == chat.RoleTool {
				made++
			}
		}
		resp := chattest.Text("done")
		if made < calls-1 {
			resp = chattest.Calls(chattest.Call(fmt.Sprint("c", made), "noop", `{}`))
		}
		resp.Usage = chat.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110}
		return resp, nil
	})
}

// TestRoundTripsPerModelCall counts what runs of 1 and 3 model calls send to Postgres, with and without a budget:
// the budget adds one round trip per model call. In a conversation that is each call's reservation, carrying the
// previous call's settlement, while the last settlement and the release of the run's place ride on the run's end;
// without one the end is a round trip of its own, and the first reservation rides on the settings read instead.
// The budget's spend is whole and the run's place free as the run returns.
func TestRoundTripsPerModelCall(t *testing.T) {
	pg := streambench.OpenPostgres(t, nil)
	limit := int64(1) << 40
	meter := budget.New(&budget.Options{Store: pg.Store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: &limit}}})
	ctx := context.Background()
	for _, tc := range []struct {
		calls        int
		conversation bool
		extra        int64 // the round trips the budget adds
	}{
		{1, true, 1},
		{3, true, 3},
		{1, false, 1},
		{3, false, 3},
	} {
		t.Run(fmt.Sprintf("calls=%d/conversation=%v", tc.calls, tc.conversation), func(t *testing.T) {
			is := is.New(t)
			count := func(m agent.Meter, tenant string) streambench.Counts {
				cfg := agent.Config{Client: callsModel(tc.calls), Store: pg.Store, Tools: []toolset.Source{toolset.List([]*toolset.Tool{noop})}}
				if m != nil {
					cfg.Meter = m
				}
				h, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, cfg)
				is.NoErr(err)
				opts := []agent.RunOption{agent.Text("go"), agent.SettingsID(tenant)}
				if tc.conversation {
					opts = append(opts, agent.Conversation(fmt.Sprint("c-", time.Now().UnixNano())))
				}
				// A first run, uncounted, prepares what the store prepares once.
				_, err = h.Run(ctx, opts...)
				is.NoErr(err)
				if tc.conversation {
					opts[len(opts)-1] = agent.Conversation(fmt.Sprint("c-", time.Now().UnixNano()))
				}
				before := pg.Counter.Settle(20*time.Millisecond, time.Second)
				_, err = h.Run(ctx, opts...)
				is.NoErr(err)
				return pg.Counter.Counts().Sub(before)
			}
			tenant := fmt.Sprintf("t-%d-%v", tc.calls, tc.conversation)
			without := count(nil, tenant+"-none")
			with := count(meter, tenant)
			is.Equal(with.Rollbacks, int64(0))
			t.Logf("round trips without a budget %d, with %d (statements %d, %d)", without.Tx, with.Tx, without.Stmts, with.Stmts)
			is.Equal(with.Tx-without.Tx, tc.extra)

			// Nothing is held once the run returned, and every call is spent: two runs of calls × 110 tokens.
			u, err := meter.Usage(ctx, tenant, "")
			is.NoErr(err)
			is.Equal(u.LiveRuns, int64(0))
			is.Equal(u.Reserved, storage.BudgetSpend{})
			is.Equal(u.Windows[0].Spent.Tokens, int64(2*tc.calls*110))
		})
	}
}

// TestNothingHeldAfterARunWithoutAConversation ends runs without a conversation in each way a run ends: its place
// and its reservation are free as soon as it returns, not a lease's time later, and what it spent is counted.
func TestNothingHeldAfterARunWithoutAConversation(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		limit := int64(1) << 40
		meter := budget.New(&budget.Options{Store: store.(storage.Budgeter), Defaults: budget.Limits{Day: &budget.Limit{Tokens: &limit}}})
		failing := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
			return nil, errors.New("the provider is down")
		})
		for _, tc := range []struct {
			name   string
			client chat.Client
			run    func(h *agent.Host, opts []agent.RunOption) error
			spent  int64
		}{
			{"run", callsModel(3), func(h *agent.Host, opts []agent.RunOption) error { _, err := h.Run(t.Context(), opts...); return err }, 330},
			{"stream", callsModel(3), func(h *agent.Host, opts []agent.RunOption) error {
				for _, err := range h.RunStream(t.Context(), opts...) {
					if err != nil {
						return err
					}
				}
				return nil
			}, 330},
			{"stream stopped", callsModel(3), func(h *agent.Host, opts []agent.RunOption) error {
				for range h.RunStream(t.Context(), opts...) {
					break
				}
				return nil
			}, 110},
			{"failed", failing, func(h *agent.Host, opts []agent.RunOption) error {
				if _, err := h.Run(t.Context(), opts...); err == nil {
					return errors.New("the run did not fail")
				}
				return nil
			}, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				h, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, agent.Config{Client: tc.client, Store: store, Meter: meter,
					Tools: []toolset.Source{toolset.List([]*toolset.Tool{noop})}, LeaseTTL: time.Hour})
				is.NoErr(err)
				tenant := "t-" + tc.name
				is.NoErr(tc.run(h, []agent.RunOption{agent.Text("go"), agent.SettingsID(tenant)}))
				u, err := meter.Usage(t.Context(), tenant, "")
				is.NoErr(err)
				is.Equal(u.LiveRuns, int64(0)) // not an hour from now
				is.Equal(u.Reserved, storage.BudgetSpend{})
				is.Equal(u.Windows[0].Spent.Tokens, tc.spent)
			})
		}
	})
}

// eachStore runs f on the memory store and on a Postgres store of a fresh schema.
func eachStore(t *testing.T, f func(t *testing.T, store storage.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) { f(t, streambench.OpenPostgres(t, nil).Store) })
}
