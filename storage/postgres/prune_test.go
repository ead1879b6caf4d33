package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// countRows counts a tenant's rows of a table, under that tenant.
func countRows(t *testing.T, pool *pgxpool.Pool, tenant, table string) int {
	t.Helper()
	var n int
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), `SELECT set_config('typeshift.settings_id', $1, true)`, tenant); err != nil {
			return err
		}
		return tx.QueryRow(context.Background(), `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPrune: expired events and watcher rows go, those within the retention stay, for every tenant the store
// wrote for; two instances pruning while publishers write never wait for each other or deadlock.
func TestPrune(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, schema := newPool(t)
	const retention = time.Second
	a := openStore(t, pool, &postgres.Options{Channel: schema, EventRetention: retention})
	t.Cleanup(a.Close)
	b := openStore(t, pool, &postgres.Options{Channel: schema, EventRetention: retention})
	t.Cleanup(b.Close)
	ctx := t.Context()

	publish := func(s *postgres.Store, tenant, conv string, from int64, n int) {
		t.Helper()
		evs := make([]storage.Event, n)
		for i := range evs {
			evs[i] = storage.Event{ID: from + int64(i), Data: []byte(`{"kind":"update"}`)}
		}
		is.NoErr(s.Publish(ctx, tenant, conv, evs))
	}
	for c := range 3 {
		publish(a, "a", fmt.Sprint("c", c), 1, 800)
	}
	publish(a, "b", "c0", 1, 10)
	// A watcher row that expired: its instance stopped without deleting it.
	is.NoErr(pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'a', true)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO conversation_watchers VALUES ('a', 'c0', 'crashed', now() - interval '1 minute')`)
		return err
	}))
	is.Equal(countRows(t, pool, "a", "conversation_events"), 2400)

	time.Sleep(retention + 200*time.Millisecond)
	publish(a, "a", "c0", 801, 5) // within the retention: kept
	for range 5 {                 // the store's own pass, a second after its first write, may have taken some already
		n, err := a.Prune(ctx)
		is.NoErr(err)
		if n == 0 {
			break
		}
	}
	is.Equal(countRows(t, pool, "a", "conversation_events"), 5)
	is.Equal(countRows(t, pool, "b", "conversation_events"), 0)
	is.Equal(countRows(t, pool, "a", "conversation_watchers"), 0)
	n, err := b.Prune(ctx)
	is.NoErr(err)
	is.Equal(n, int64(0)) // b wrote for no tenant: it prunes none

	// Both instances prune while both publish: no error, no deadlock, the fresh events kept.
	time.Sleep(retention)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i, s := range []*postgres.Store{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for k := range 20 {
				evs := []storage.Event{{ID: int64(10000*(i+1) + k), Data: []byte(`{}`)}}
				if err := s.Publish(ctx, "a", "c1", evs); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := s.Prune(ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err) // a deadlock would be SQLSTATE 40P01 here
	}
	is.Equal(countRows(t, pool, "a", "conversation_events"), 40) // the 5 above expired meanwhile; the 40 new ones stay
}
