package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// TestPublishBatches: the Publish calls of many conversations of two tenants that arrive within one publish
// interval are written together, with one notification that names them all, not one transaction and one
// notification each; a batch that set the wrong tenant for some of them would fail under row-level security and
// be sent again one publication at a time, one notification each.
func TestPublishBatches(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, schema := newPool(t)
	s := openStore(t, pool, &postgres.Options{Channel: schema, PublishInterval: 400 * time.Millisecond})
	t.Cleanup(s.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	lcfg := pgtest.DirectOf(t, pool) // a LISTEN holds a session: not through a pooler
	if lcfg == nil {
		lcfg = pool.Config().ConnConfig.Copy()
	}
	listen, err := pgx.ConnectConfig(ctx, lcfg)
	is.NoErr(err)
	t.Cleanup(func() { _ = listen.Close(context.Background()) })
	_, err = listen.Exec(ctx, "LISTEN "+pgx.Identifier{schema}.Sanitize())
	is.NoErr(err)

	type conv struct {
		sid, id string
		head    int64
	}
	var convs []conv
	for _, sid := range []string{"a", "b"} {
		for i := range 8 {
			c, err := s.Claim(ctx, sid, fmt.Sprintf("c%d", i), "run", time.Minute)
			is.NoErr(err)
			_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)})
			is.NoErr(err)
			is.NoErr(s.Release(ctx, c))
			convs = append(convs, conv{sid, c.ConversationID, c.EventHead})
		}
	}
	// The first publication starts the interval; the others arrive within it.
	is.NoErr(s.Publish(ctx, "a", "c0", []storage.Event{{ID: convs[0].head + 1, Data: []byte(`"first"`)}}))
	n, err := listen.WaitForNotification(ctx)
	is.NoErr(err)
	is.True(strings.HasPrefix(n.Payload, "E1:a2:c0"))
	var wg sync.WaitGroup
	for _, c := range convs {
		wg.Go(func() {
			evs := []storage.Event{{ID: c.head + 2, Data: []byte(`"x"`)}, {ID: c.head + 3, Data: []byte(`"y"`)}}
			if err := s.Publish(ctx, c.sid, c.id, evs); err != nil {
				t.Errorf("Publish %s/%s: %v", c.sid, c.id, err)
			}
		})
	}
	wg.Wait()

	var payloads []string
	for {
		wctx, stop := context.WithTimeout(ctx, 600*time.Millisecond)
		n, err := listen.WaitForNotification(wctx)
		stop()
		if err != nil {
			break
		}
		payloads = append(payloads, n.Payload)
	}
	is.True(len(payloads) >= 1 && len(payloads) <= 2) // 16 publications in one or two batches, not 16
	all := strings.Join(payloads, "")
	for _, c := range convs {
		// Each conversation is named with its last event.
		name := fmt.Sprintf("1:%s2:%s%d,", c.sid, c.id, c.head+3)
		if !strings.Contains(all, name) {
			t.Errorf("the notifications %q do not name %s", payloads, name)
		}
	}
	// Each tenant's events are its own, and each conversation's head moved.
	for _, c := range convs {
		rng, err := s.EventRange(ctx, c.sid, c.id)
		is.NoErr(err)
		is.Equal(rng.Head, c.head+3)
	}
}

// TestPublishAfterClose: a store that closed still publishes, each call alone, through the pool.
func TestPublishAfterClose(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, _, _ := newStore(t)
	ctx := t.Context()
	c, err := s.Claim(ctx, "t", "c", "run", time.Minute)
	is.NoErr(err)
	is.NoErr(s.Publish(ctx, "t", "c", []storage.Event{{ID: c.EventHead + 1, Data: []byte(`1`)}}))
	s.Close()
	is.NoErr(s.Publish(ctx, "t", "c", []storage.Event{{ID: c.EventHead + 2, Data: []byte(`2`)}}))
	rng, err := s.EventRange(ctx, "t", "c")
	is.NoErr(err)
	is.Equal(rng.Head, c.EventHead+2)
}

// readCounter counts the batches that read events.
type readCounter struct{ n atomic.Int64 }

func (c *readCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	for _, q := range data.Batch.QueuedQueries {
		if strings.Contains(q.SQL, "FROM conversation_events") {
			c.n.Add(1)
			break
		}
	}
	return ctx
}
func (c *readCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (c *readCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData)     {}
func (c *readCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *readCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestWatchReadsBatched: the watchers of many conversations of two tenants in one process, signalled by one
// batch of publications, read their events together, in a batch or two, not one read each; each gets its own
// conversation's events only.
func TestWatchReadsBatched(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, schema := newPool(t)
	publisher := openStore(t, pool, &postgres.Options{Channel: schema, PublishInterval: 2 * time.Second}) // wide enough that a loaded machine's publications share one or two
	t.Cleanup(publisher.Close)
	cfg := pool.Config()
	counter := &readCounter{}
	cfg.ConnConfig.Tracer = counter
	watchPool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	is.NoErr(err)
	t.Cleanup(watchPool.Close)
	watcher := openStore(t, watchPool, &postgres.Options{Channel: schema})
	t.Cleanup(watcher.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	type conv struct {
		sid, id string
		head    int64
		ch      <-chan storage.Event
	}
	var convs []*conv
	for _, sid := range []string{"a", "b"} {
		for i := range 8 {
			c, err := publisher.Claim(ctx, sid, fmt.Sprintf("c%d", i), "run", time.Minute)
			is.NoErr(err)
			_, err = publisher.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)})
			is.NoErr(err)
			is.NoErr(publisher.Release(ctx, c))
			ch, err := watcher.Watch(ctx, sid, c.ConversationID, c.EventHead)
			is.NoErr(err)
			convs = append(convs, &conv{sid, c.ConversationID, c.EventHead, ch})
		}
	}
	// The watches' first reads are not what is counted: wait until the watcher has been quiet for a while, however
	// slow a loaded machine makes them.
	before := counter.n.Load()
	for quiet := time.Now(); time.Since(quiet) < 300*time.Millisecond; {
		time.Sleep(50 * time.Millisecond)
		if n := counter.n.Load(); n != before {
			before, quiet = n, time.Now()
		}
		if ctx.Err() != nil {
			t.Fatal("the watches kept reading")
		}
	}
	var wg sync.WaitGroup
	for _, c := range convs {
		wg.Go(func() {
			data := []byte(c.sid + "/" + c.id)
			if err := publisher.Publish(ctx, c.sid, c.id, []storage.Event{{ID: c.head + 1, Data: data}}); err != nil {
				t.Errorf("Publish: %v", err)
			}
		})
	}
	wg.Wait()
	for _, c := range convs {
		select {
		case e := <-c.ch:
			is.Equal(e.ID, c.head+1)
			is.Equal(string(e.Data), c.sid+"/"+c.id) // its own conversation's event
		case <-ctx.Done():
			t.Fatalf("%s/%s: no event", c.sid, c.id)
		}
	}
	reads := counter.n.Load() - before
	t.Logf("%d watchers read in %d batches", len(convs), reads)
	// Two tenants, and the publications may straddle a few publish intervals on a loaded machine: a handful of
	// batches, never a read for each watcher.
	is.True(reads >= 1 && reads <= int64(len(convs))/2) // not a read each
}

// deadlockCounter counts the statements that failed with a deadlock (SQLSTATE 40P01).
type deadlockCounter struct{ n atomic.Int64 }

func (c *deadlockCounter) check(err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
		c.n.Add(1)
	}
}
func (c *deadlockCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (c *deadlockCounter) TraceQueryEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	c.check(d.Err)
}
func (c *deadlockCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (c *deadlockCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.check(d.Err)
}
func (c *deadlockCounter) TraceBatchEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchEndData) {
	c.check(d.Err)
}

// TestPublishBesideRenewals: batches of publications of many conversations, in any order, beside renewals of all
// their leases at once and the runs' own writes, never deadlock: the batch raises the heads of the rows no one
// holds and leaves the others to the claim's reading of the last event.
func TestPublishBesideRenewals(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	_, cfg := pgtest.Schema(t)
	counter := &deadlockCounter{}
	cfg.ConnConfig.Tracer = counter
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	is.NoErr(err)
	t.Cleanup(pool.Close)
	_, err = postgres.Migrate(t.Context(), pool)
	is.NoErr(err)
	s := openStore(t, pool, &postgres.Options{PublishInterval: -1})
	t.Cleanup(s.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var claims []storage.Claim
	for i := range 40 {
		c, err := s.Claim(ctx, "t", fmt.Sprintf("c%02d", i), "run", time.Minute)
		is.NoErr(err)
		claims = append(claims, c)
	}
	until := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	wg.Go(func() {
		for time.Now().Before(until) {
			if _, err := s.RenewRuns(ctx, claims, time.Minute); err != nil {
				t.Errorf("RenewLeases: %v", err)
				return
			}
		}
	})
	for i, c := range claims {
		wg.Go(func() {
			for n := int64(1); time.Now().Before(until); n++ {
				if err := s.Publish(ctx, "t", c.ConversationID, []storage.Event{{ID: c.EventHead + n, Data: []byte(`{}`)}}); err != nil {
					t.Errorf("Publish: %v", err)
					return
				}
				if i%4 == 0 { // a run's own write, which locks its row
					if _, err := s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)}); err != nil {
						t.Errorf("Append: %v", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	is.Equal(counter.n.Load(), int64(0)) // no deadlock
	// Every conversation's head is at least its last event, raised or read.
	for _, c := range claims {
		rng, err := s.EventRange(ctx, "t", c.ConversationID)
		is.NoErr(err)
		is.True(rng.Head > c.EventHead)
	}
}
