package budget_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// See docs/performance-budgets.md for the figures and how they were taken.

// roundTrips counts what a pool sends to Postgres: each query, exec and batch is one round trip.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

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

// BenchmarkRunPostgres is one run of two model calls in a conversation of its own on Postgres, and reports the
// round trips a run sends and those a model call adds under a budget.
func BenchmarkRunPostgres(b *testing.B) {
	pool, _ := pgtest.Pool(b)
	if _, err := postgres.Migrate(b.Context(), pool); err != nil {
		b.Fatal(err)
	}
	cfg := pool.Config()
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	traced, err := pgxpool.NewWithConfig(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(traced.Close)
	store, err := postgres.New(b.Context(), traced, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(store.Close)
	for _, bc := range []struct {
		name string
		m    agent.Meter
	}{
		{"none", nil},
		{"budget", budget.New(&budget.Options{Store: store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: ptr(int64(1) << 60)}}})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := benchHost(b, store, bc.m)
			ctx := context.Background()
			i := 0
			b.ReportAllocs()
			before := rt.n.Load()
			for b.Loop() {
				i++
				if _, err := h.Run(ctx, agent.Text("go"), agent.SettingsID("t1"), agent.Conversation(fmt.Sprintf("%s-%d", bc.name, i))); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rt.n.Load()-before)/float64(i), "roundtrips/run")
		})
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
