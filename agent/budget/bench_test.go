package budget_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// See docs/performance-budgets.md for the figures and how they were taken.

// benchModel answers as honest does, from a response made once: a tool call, then text.
func benchModel() chat.Client {
	call := chattest.Calls(chattest.Call("c1", "noop", `{}`))
	call.Usage = chat.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110}
	text := chattest.Text("done")
	text.Usage = call.Usage
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		if msgs[len(msgs)-1].Role == chat.RoleTool {
			r := *text
			return &r, nil
		}
		r := *call
		return &r, nil
	})
}

func benchHost(b *testing.B, store storage.Store, m agent.Meter) *agent.Host {
	b.Helper()
	cfg := agent.Config{Client: benchModel(), Store: store, Tools: []toolset.Source{toolset.List([]*toolset.Tool{noop})}}
	if m != nil {
		cfg.Meter = m
	}
	h, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkRunMemory is one run of two model calls on the memory store without a conversation: without a meter,
// with a meter that prices calls only, and with budgets kept in the store.
func BenchmarkRunMemory(b *testing.B) {
	store := memory.New()
	for _, bc := range []struct {
		name string
		m    agent.Meter
	}{
		{"none", nil},
		{"prices", budget.New(nil)},
		{"budget", budget.New(&budget.Options{Store: store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: ptr(int64(1) << 60)}}})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := benchHost(b, store, bc.m)
			ctx := context.Background()
			opts := []agent.RunOption{agent.Text("go"), agent.SettingsID("t1")}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Run(ctx, opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunPostgres is one run of 1 or 3 model calls in a conversation of its own on Postgres, without a meter
// and under a budget, and reports the round trips (transactions, each one batch or statement) and statements a
// run sends, as streambench.Counter counts them.
func BenchmarkRunPostgres(b *testing.B) {
	pg := streambench.OpenPostgres(b, nil)
	limit := int64(1) << 60
	meter := budget.New(&budget.Options{Store: pg.Store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: &limit}}})
	for _, calls := range []int{1, 3} {
		for _, bc := range []struct {
			name string
			m    agent.Meter
		}{
			{"none", nil},
			{"budget", meter},
		} {
			b.Run(fmt.Sprintf("calls=%d/%s", calls, bc.name), func(b *testing.B) {
				cfg := agent.Config{Client: callsModel(calls), Store: pg.Store, Tools: []toolset.Source{toolset.List([]*toolset.Tool{noop})}}
				if bc.m != nil {
					cfg.Meter = bc.m
				}
				h, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				i := 0
				b.ReportAllocs()
				before := pg.Counter.Counts()
				for b.Loop() {
					i++
					id := fmt.Sprintf("%d-%s-%d", calls, bc.name, i)
					if _, err := h.Run(ctx, agent.Text("go"), agent.SettingsID("t1"), agent.Conversation(id)); err != nil {
						b.Fatal(err)
					}
				}
				d := pg.Counter.Counts().Sub(before)
				b.ReportMetric(float64(d.Tx)/float64(i), "roundtrips/run")
				b.ReportMetric(float64(d.Stmts)/float64(i), "stmts/run")
			})
		}
	}
}

// BenchmarkReserve is one reservation with the previous call's settlement, as each model call under a budget
// sends, with 1, 50 or 200 other runs of the tenant holding reservations.
func BenchmarkReserve(b *testing.B) {
	stores := map[string]func(b *testing.B) storage.Budgeter{
		"memory": func(*testing.B) storage.Budgeter { return memory.New() },
		"postgres": func(b *testing.B) storage.Budgeter {
			pool, _ := pgtest.Pool(b)
			if _, err := postgres.Migrate(b.Context(), pool); err != nil {
				b.Fatal(err)
			}
			s, err := postgres.New(b.Context(), pool, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(s.Close)
			return s
		},
	}
	for _, name := range []string{"memory", "postgres"} {
		for _, others := range []int{1, 50, 200} {
			b.Run(fmt.Sprintf("%s/others=%d", name, others), func(b *testing.B) {
				s := stores[name](b)
				ctx := context.Background()
				limit := int64(1) << 60
				r := storage.BudgetReservation{SettingsID: "t1", TTL: 1 << 40, Defaults: budget.Limits{Day: &budget.Limit{Tokens: &limit}},
					Reserve: storage.BudgetSpend{Tokens: 2000, Nanos: 1000}}
				for i := range others {
					r.RunID = fmt.Sprint("other-", i)
					if err := s.ReserveBudget(ctx, r); err != nil {
						b.Fatal(err)
					}
				}
				r.RunID, r.Settle = "mine", storage.BudgetSpend{Tokens: 1100, Nanos: 900}
				b.ReportAllocs()
				for b.Loop() {
					if err := s.ReserveBudget(ctx, r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
