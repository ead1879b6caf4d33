package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// pgPool returns a migrated schema's pool of at most maxConns connections and a store over it.
func pgPool(tb testing.TB, maxConns int32) (*postgres.Store, *pgxpool.Pool) {
	tb.Helper()
	_, cfg := pgtest.Schema(tb)
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("opening a pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		tb.Fatalf("migrating: %v", err)
	}
	s := newPostgresStore(tb, pool)
	tb.Cleanup(s.Close)
	return s, pool
}

// BenchmarkRoundCheckouts runs rounds of one conversation on Postgres (a round is a run that calls one tool and
// answers) and reports how many connections each round checks out of the pool: with the agent's settings read
// from the store, and from elsewhere. See docs/performance-leases.md.
func BenchmarkRoundCheckouts(b *testing.B) {
	noSettings := agent.SettingsFunc(func(context.Context, string, string) (json.RawMessage, error) { return nil, nil })
	for _, bc := range []struct {
		name     string
		settings agent.SettingsSource
	}{{"stored-settings", nil}, {"settings-elsewhere", noSettings}} {
		b.Run(bc.name, func(b *testing.B) {
			s, pool := pgPool(b, 4)
			h := host(convRoundModel, agent.Config{Store: s, Settings: bc.settings}, echo("search"))
			ctx := context.Background()
			// One round first, so that the conversation exists and the listener of steering input is up.
			if _, err := h.Run(ctx, agent.Text("Where is my order?"), agent.SettingsID(tenant), agent.Conversation("checkouts")); err != nil {
				b.Fatal(err)
			}
			before := pool.Stat().AcquireCount()
			n := 0
			for b.Loop() {
				n++
				if _, err := h.Run(ctx, agent.Text("Where is my order?"), agent.SettingsID(tenant), agent.Conversation("checkouts")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(pool.Stat().AcquireCount()-before)/float64(n), "checkouts/round")
		})
	}
}

// Live runs on a small, busy pool, each in a model call longer than its lease: every claim must be renewed
// while ordinary queries queue for the pool's connections.
const (
	leaseBenchRuns  = 1000
	leaseBenchConns = 4
	leaseBenchTTL   = 3 * time.Second
	leaseBenchHold  = 4 * time.Second // how long each run's model call lasts
	leaseBenchBusy  = 64              // goroutines that keep the pool busy with queries of their own
)

// BenchmarkLeasesBusyPool starts 1,000 runs at once on a 4-connection pool with a 3 s lease, while other
// goroutines keep the pool busy, and reports how many runs lost their claim (claims_lost, to be 0). Run it with
// -benchtime=1x: one iteration lasts several seconds. See docs/performance-leases.md.
func BenchmarkLeasesBusyPool(b *testing.B) {
	s, pool := pgPool(b, leaseBenchConns)
	model := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		select {
		case <-time.After(leaseBenchHold):
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "done"}}}},
			Usage: oneUsage, FinishReason: chat.FinishStop}, nil
	})
	h := host(model, agent.Config{Store: s, LeaseTTL: leaseBenchTTL})
	ctx := context.Background()
	var lost, failed atomic.Int64
	var firstErr atomic.Value
	n := 0
	for b.Loop() {
		n++
		busyCtx, stopBusy := context.WithCancel(ctx)
		var busy sync.WaitGroup
		for range leaseBenchBusy {
			busy.Go(func() {
				for busyCtx.Err() == nil {
					_, _ = pool.Exec(busyCtx, `SELECT pg_sleep(0.05)`)
				}
			})
		}
		var wg sync.WaitGroup
		for r := range leaseBenchRuns {
			id := fmt.Sprintf("busy-%d-%d", n, r)
			wg.Go(func() {
				_, err := h.Run(ctx, agent.Text("hold on"), agent.SettingsID(tenant), agent.Conversation(id))
				switch {
				case errors.Is(err, storage.ErrClaimLost):
					lost.Add(1)
				case err != nil:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			})
		}
		wg.Wait()
		stopBusy()
		busy.Wait()
	}
	if err, ok := firstErr.Load().(error); ok {
		b.Logf("%d runs failed otherwise; the first: %v", failed.Load(), err)
	}
	b.ReportMetric(float64(lost.Load())/float64(n), "claims_lost")
	b.ReportMetric(float64(failed.Load())/float64(n), "runs_failed")
}
