package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// commitTracer records, for each batch and statement the store sends, whether its transaction commits without
// waiting for the WAL flush (it sets synchronous_commit) and whether it writes entries or takes a claim.
type commitTracer struct {
	mu   sync.Mutex
	sent []sentTx
}

type sentTx struct {
	noFlush, stores, claims bool
	sql                     string
}

func (c *commitTracer) record(sqls ...string) {
	tx := sentTx{sql: strings.Join(sqls, "\n;\n")}
	for _, q := range sqls {
		tx.noFlush = tx.noFlush || strings.Contains(q, "synchronous_commit")
		tx.stores = tx.stores || strings.Contains(q, "INSERT INTO conversation_entries") ||
			strings.Contains(q, "INSERT INTO conversation_steering")
		tx.claims = tx.claims || strings.Contains(q, "INSERT INTO conversations AS c")
	}
	c.mu.Lock()
	c.sent = append(c.sent, tx)
	c.mu.Unlock()
}

func (c *commitTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	sqls := make([]string, len(data.Batch.QueuedQueries))
	for i, q := range data.Batch.QueuedQueries {
		sqls[i] = q.SQL
	}
	c.record(sqls...)
	return ctx
}

func (c *commitTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.record(data.SQL)
	return ctx
}
func (c *commitTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData)     {}
func (c *commitTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *commitTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestDurableCommits: of a conversation's transactions, only the claims commit without waiting for the WAL flush;
// every transaction that stores entries or queues steering input commits durably, whatever else it does.
func TestDurableCommits(t *testing.T) {
	is := is.New(t)
	pool, schema := newPool(t)
	cfg := pool.Config()
	tracer := &commitTracer{}
	cfg.ConnConfig.Tracer = tracer
	traced, err := pgxpool.NewWithConfig(t.Context(), cfg)
	is.NoErr(err)
	t.Cleanup(traced.Close)
	s := openStore(t, traced, &postgres.Options{Channel: schema})
	t.Cleanup(s.Close)
	ctx := t.Context()
	entry := func(typ storage.EntryType, data string) storage.Entry {
		return storage.Entry{Type: typ, Data: []byte(data)}
	}

	c, err := s.Claim(ctx, "t1", "c1", "run-1", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, entry(storage.EntryRunStart, `{"mode":"ask"}`), entry(storage.EntryInput, `[]`))
	is.NoErr(err)
	is.NoErr(s.Steer(ctx, "t1", "c1", []byte(`[{"role":"user","parts":[{"text":"also this"}]}]`)))
	_, err = s.Renew(ctx, c, time.Minute)
	is.NoErr(err)
	_, err = s.RenewRuns(ctx, []storage.Claim{c}, time.Minute)
	is.NoErr(err)
	_, err = s.EndRun(ctx, storage.RunEnd{Claim: c, Entries: []storage.Entry{entry(storage.EntryRunEnd, `{"mode":"ask"}`)}})
	is.NoErr(err)
	got, err := s.BeginRun(ctx, storage.RunBegin{SettingsID: "t1", ConversationID: "c1", Owner: "run-2", TTL: time.Minute})
	is.NoErr(err)
	_, err = s.Append(ctx, got.Claim, entry(storage.EntryInput, `[]`))
	is.NoErr(err)
	is.NoErr(s.Release(ctx, got.Claim))

	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	claims, stores := 0, 0
	for _, tx := range tracer.sent {
		switch {
		case tx.claims:
			claims++
			if !tx.noFlush {
				t.Errorf("a claim waits for its WAL flush:\n%s", tx.sql)
			}
		case tx.noFlush:
			t.Errorf("a transaction that does not claim commits without waiting for its WAL flush:\n%s", tx.sql)
		}
		if tx.stores {
			stores++
		}
	}
	is.Equal(claims, 2)  // Claim and BeginRun
	is.True(stores >= 5) // the appends, the steering input, the releases that move it
}
