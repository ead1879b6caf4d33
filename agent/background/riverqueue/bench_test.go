package riverqueue_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// See docs/performance-background.md for the figures and how they were taken.

// roundTrips counts what a pool sends to Postgres: each query, exec and batch is one round trip (a batch is
// sent and read as one; pgx sends BEGIN and COMMIT as statements of their own).
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

// benchEnv is a migrated schema with a store and a River client on one pool whose round trips are counted.
func benchEnv(b *testing.B) (*env, *roundTrips, *pgxpool.Pool) {
	b.Helper()
	pool, schema := pgtest.Pool(b)
	if _, _, err := riverqueue.Migrate(b.Context(), pool); err != nil {
		b.Fatal(err)
	}
	cfg := pool.Config()
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	// Durable figures: every commit waits for its flush, whatever the test role's default.
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	traced, err := pgxpool.NewWithConfig(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(traced.Close)
	e := openEnv(b, traced, schema)
	e.caller(b, tenant, "caller")
	return e, rt, pool
}

// BenchmarkEnqueue is one Enqueue: the job's row, the sub-agent's conversation and its two River jobs in one
// transaction, with the tenant's limit checked.
func BenchmarkEnqueue(b *testing.B) {
	e, rt, _ := benchEnv(b)
	q := e.queue(b, "bench")
	i := 0
	start := rt.n.Load()
	for b.Loop() {
		i++
		if err := q.Enqueue(b.Context(), newJob(fmt.Sprintf("e%d", i), "task"), 1<<30); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rt.n.Load()-start)/float64(i), "roundtrips/op")
}

// BenchmarkEnqueueToStart is the latency from Enqueue's call to the RunFunc's start on a worker that waits for
// jobs, one job at a time: River's insert notification wakes the worker, which fetches the job and marks it
// running.
func BenchmarkEnqueueToStart(b *testing.B) {
	for _, cooldown := range []time.Duration{0, 10 * time.Millisecond, time.Millisecond} {
		b.Run(fmt.Sprintf("cooldown=%v", cooldown), func(b *testing.B) { benchEnqueueToStart(b, cooldown) })
	}
}

func benchEnqueueToStart(b *testing.B, cooldown time.Duration) {
	e, _, _ := benchEnv(b)
	opts := testOptions("bench")
	opts.Direct = e.direct
	opts.PollInterval = time.Second // River's default: the notification, not the poll, starts the job
	opts.FetchCooldown = cooldown
	q, err := riverqueue.New(e.pool, e.store, opts)
	if err != nil {
		b.Fatal(err)
	}
	started := make(chan struct{})
	work(b, q, func(ctx context.Context, job background.Job) (background.Outcome, error) {
		started <- struct{}{}
		return background.Ended(job, background.StatusSucceeded, "ok"), nil
	})
	time.Sleep(time.Second) // the client's start and leader election
	i := 0
	for b.Loop() {
		i++
		if err := q.Enqueue(b.Context(), newJob(fmt.Sprintf("s%d", i), "task"), 0); err != nil {
			b.Fatal(err)
		}
		<-started
	}
}

// BenchmarkRun is the whole life of a background run that answers at once, with its round trips: Enqueue, River's
// fetch, the start, the outcome with its report to the caller (an ended run, so the report is stored as its next
// entry) and River's completion; the watch job looks once more, WatchEvery later (4 round trips), outside the
// figure. b.N runs are enqueued, then worked by 10 workers;
// River's fetches and completions are batched, and its own upkeep in that time (leader election, polls) is
// counted too.
func BenchmarkRun(b *testing.B) {
	e, rt, untraced := benchEnv(b)
	opts := testOptions("bench")
	opts.Direct = e.direct
	opts.WatchEvery = time.Hour
	opts.Workers = 10
	q, err := riverqueue.New(e.pool, e.store, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	n := b.N
	for i := range n {
		if err := q.Enqueue(b.Context(), newJob(fmt.Sprintf("r%d", i), "task"), 0); err != nil {
			b.Fatal(err)
		}
	}
	start := rt.n.Load()
	b.StartTimer()
	work(b, q, func(ctx context.Context, job background.Job) (background.Outcome, error) {
		return background.Ended(job, background.StatusSucceeded, "ok"), nil
	})
	for {
		var ended int
		// On the pool that is not counted.
		if err := pgx.BeginFunc(b.Context(), untraced, func(tx pgx.Tx) error {
			if _, err := tx.Exec(b.Context(), `SELECT set_config('typeshift.settings_id', $1, true)`, tenant); err != nil {
				return err
			}
			return tx.QueryRow(b.Context(), `SELECT count(*) FROM background_runs WHERE status = 'succeeded'`).Scan(&ended)
		}); err != nil {
			b.Fatal(err)
		}
		if ended == n {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(rt.n.Load()-start)/float64(n), "roundtrips/run")
}
