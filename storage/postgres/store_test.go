package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

// newStore returns a store on a fresh, migrated schema, with a NOTIFY
// channel of its own.
func newStore(t testing.TB) (*postgres.Store, *pgxpool.Pool, string) {
	t.Helper()
	pool, schema := pgtest.Pool(t)
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.New(context.Background(), pool, &postgres.Options{Channel: schema, Direct: pgtest.Direct(t, schema)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, pool, schema
}

// corruptible writes broken entries behind the store's back, for the
// conformance suite's rule on corrupt entries.
type corruptible struct {
	*postgres.Store
	pool *pgxpool.Pool
}

func (c corruptible) Corrupt(ctx context.Context, settingsID, conversationID string, kind storetest.Corruption) error {
	typ, version := "response", storage.EntrySchemaVersion
	switch kind {
	case storetest.CorruptType:
		typ = "from_the_future"
	case storetest.CorruptFutureVersion:
		version = storage.EntrySchemaVersion + 1
	default:
		return fmt.Errorf("a jsonb column holds only JSON: %w", errors.ErrUnsupported)
	}
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', $1, true)`, settingsID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO conversation_entries
			(settings_id, conversation_id, seq, type, created_at, schema_version, data)
			VALUES ($1, $2, 2, $3, now(), $4, '{}')`, settingsID, conversationID, typ, version)
		return err
	})
}

func (c corruptible) CorruptSettings(ctx context.Context, settingsID, kind string) error {
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', $1, true)`, settingsID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE settings_documents SET revision = 0 WHERE settings_id = $1 AND kind = $2`, settingsID, kind)
		return err
	})
}

// TestConformance runs the conformance suite and then checks that every statement the stores sent filters each
// tenant table it names by the tenant (see shard_test.go).
func TestConformance(t *testing.T) {
	rec := &statementRecorder{}
	t.Cleanup(func() { rec.check(t) })
	storetest.Run(t, func(t *testing.T) storage.Store {
		s, pool := newTracedStore(t, rec)
		return corruptible{s, pool}
	})
}

// TestConformanceBasic runs the suite through the store's basic methods: runs go the way storeutil.Runs builds.
func TestConformanceBasic(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store {
		s, _ := newTracedStore(t, &statementRecorder{})
		return storetest.Basic(s)
	})
}

// newTracedStore is newStore with every statement of the store recorded by tracer; the pool it returns, for
// writes behind the store's back, is not traced.
func newTracedStore(t testing.TB, tracer interface {
	pgx.QueryTracer
	pgx.BatchTracer
}) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool, schema := pgtest.Pool(t)
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	cfg := pool.Config().Copy()
	cfg.ConnConfig.Tracer = tracer
	traced, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(traced.Close)
	direct := pgtest.Direct(t, schema)
	if direct != nil {
		direct.Tracer = tracer
	}
	s, err := postgres.New(context.Background(), traced, &postgres.Options{Channel: schema, Direct: direct})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, pool
}

func TestCheck(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, _, _ := newStore(t)
	errs := storetest.Check(t.Context(), s)
	for _, err := range errs {
		t.Log(err)
	}
	is.Equal(len(errs), 0) // Check finds nothing wrong with the Postgres store
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, _ := pgtest.Pool(t)
	ctx := t.Context()
	all, err := postgres.Migrations()
	is.NoErr(err)
	is.True(len(all) > 0)

	var wg sync.WaitGroup
	applied := make([][]int, 4)
	errs := make([]error, 4)
	for i := range applied {
		wg.Go(func() { applied[i], errs[i] = postgres.Migrate(ctx, pool) })
	}
	wg.Wait()
	count := map[int]int{}
	for i := range applied {
		is.NoErr(errs[i])
		for _, v := range applied[i] {
			count[v]++
		}
	}
	for _, m := range all {
		is.Equal(count[m.Version], 1) // each migration applied exactly once
	}
	again, err := postgres.Migrate(ctx, pool)
	is.NoErr(err)
	is.Equal(len(again), 0)
	v, err := postgres.SchemaVersion(ctx, pool)
	is.NoErr(err)
	is.Equal(v, all[len(all)-1].Version)
}

// TestClaimRace claims one conversation from two pools at once, 50 times:
// each time exactly one claim wins.
func TestClaimRace(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	schema, cfg := pgtest.Schema(t)
	ctx := t.Context()
	var stores [2]*postgres.Store
	for i := range stores {
		pool, err := pgxpool.NewWithConfig(ctx, cfg.Copy())
		is.NoErr(err)
		t.Cleanup(pool.Close)
		if i == 0 {
			_, err := postgres.Migrate(ctx, pool)
			is.NoErr(err)
		}
		stores[i], err = postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.Direct(t, schema)})
		is.NoErr(err)
		t.Cleanup(stores[i].Close)
		// Warm up a connection so both start on equal terms.
		_, err = stores[i].List(ctx, "warm-up", storage.ListOptions{})
		is.NoErr(err)
	}
	for round := range 50 {
		id := fmt.Sprintf("race-%d", round)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, len(stores))
		for i, s := range stores {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Claim(ctx, "tenant", id, fmt.Sprintf("instance-%d", i), time.Minute)
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			is.True(errors.Is(err, storage.ErrConversationBusy)) // the loser is told the conversation is busy
		}
		is.Equal(won, 1) // exactly one claim wins
	}
}

// TestWatchAcrossInstances: a watcher on one instance is heard by another instance's runs (the claim says so, and
// a signal comes when it starts watching mid-run), never by its own, and follows what they publish.
func TestWatchAcrossInstances(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	watcher, pool, schema := newStore(t)
	ctx := t.Context()
	publisherPool, err := pgxpool.NewWithConfig(ctx, pool.Config())
	is.NoErr(err)
	t.Cleanup(publisherPool.Close)
	publisher, err := postgres.New(ctx, publisherPool, &postgres.Options{Channel: schema, Direct: pgtest.Direct(t, schema)})
	is.NoErr(err)
	t.Cleanup(publisher.Close)

	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := publisher.Claim(wctx, "tenant", "conv", "run", time.Minute)
	is.NoErr(err)
	is.True(!c.Watched) // nobody watches yet
	heard, err := publisher.WatchWatchers(wctx, "tenant", "conv")
	is.NoErr(err)
	own, err := watcher.WatchWatchers(wctx, "tenant", "conv")
	is.NoErr(err)
	ch, err := watcher.Watch(wctx, "tenant", "conv", c.EventHead)
	is.NoErr(err)
	select {
	case <-heard: // the run hears of the watcher that started mid-run
	case <-wctx.Done():
		t.Fatal("the publisher never heard of the watcher")
	}
	is.NoErr(publisher.Release(wctx, c))
	again, err := publisher.Claim(wctx, "tenant", "conv", "run", time.Minute)
	is.NoErr(err)
	is.True(again.Watched) // the next claim reads the watcher's row
	is.NoErr(publisher.Release(wctx, again))
	mine, err := watcher.Claim(wctx, "tenant", "conv", "run", time.Minute)
	is.NoErr(err)
	is.True(!mine.Watched) // the watcher's own instance feeds it from memory
	is.NoErr(watcher.Release(wctx, mine))

	big := make([]byte, 20000)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	events := []storage.Event{{ID: c.EventHead + 1, Data: []byte(`{"n":1}`)}, {ID: c.EventHead + 2, Data: big}}
	is.NoErr(publisher.Publish(ctx, "tenant", "conv", events))
	is.NoErr(publisher.Publish(ctx, "tenant", "conv", []storage.Event{{ID: c.EventHead + 3, Data: []byte(`{"n":3}`)}}))
	events = append(events, storage.Event{ID: c.EventHead + 3, Data: []byte(`{"n":3}`)})
	for i, want := range events {
		select {
		case got := <-ch:
			is.Equal(got.ID, want.ID)                     // ids are the publisher's
			is.Equal(string(got.Data), string(want.Data)) // events arrive whole and in order
		case <-wctx.Done():
			t.Fatalf("event %d did not arrive", i)
		}
	}
	select {
	case <-own:
		t.Fatal("a store heard its own watcher")
	default:
	}
}

// TestNonOwnerRole shows that a role which does not own the tables, as an
// application role would be, sees one tenant's rows only.
func TestNonOwnerRole(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, schema := newStore(t)
	ctx := t.Context()
	const role = "typeshift_tenant"
	var exists bool
	is.NoErr(pool.QueryRow(ctx, `SELECT pg_has_role(current_user, $1, 'MEMBER')`, role).Scan(&exists))
	if !exists {
		t.Fatalf("role %s is missing or not granted to the test user; run .ci/postgres.sh", role)
	}

	for _, tenant := range []string{"a", "b"} {
		_, err := s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "k", Data: []byte(`{"secret":"` + tenant + `"}`)}, 0)
		is.NoErr(err)
		c, err := s.Claim(ctx, tenant, "conv-"+tenant, "o", time.Minute)
		is.NoErr(err)
		_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`{"secret":"` + tenant + `"}`)})
		is.NoErr(err)
	}
	_, err := pool.Exec(ctx, fmt.Sprintf(`GRANT USAGE ON SCHEMA %[1]s TO %[2]s;
		GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %[1]s TO %[2]s`,
		pgx.Identifier{schema}.Sanitize(), role))
	is.NoErr(err)

	conn, err := pool.Acquire(ctx)
	is.NoErr(err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SET ROLE "+role)
	is.NoErr(err)
	defer func() {
		// Give the connection back as it was taken.
		if _, err := conn.Exec(context.WithoutCancel(ctx), "RESET ROLE"); err != nil {
			_ = conn.Hijack().Close(ctx)
		}
	}()
	var who string
	is.NoErr(conn.QueryRow(ctx, `SELECT current_user`).Scan(&who))
	is.Equal(who, role)

	count := func(tx pgx.Tx, table string) int {
		var n int
		is.NoErr(tx.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n))
		return n
	}
	tables := []string{"settings_documents", "conversations", "conversation_entries"}

	// No tenant named: nothing visible.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, table := range tables {
			is.Equal(count(tx, table), 0) // no tenant, no rows
		}
		return nil
	})
	is.NoErr(err)

	// Tenant a: a's rows only, even when asking for b's.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'a', true)`)
		is.NoErr(err)
		for _, table := range tables {
			is.Equal(count(tx, table), 1) // only tenant a's row
		}
		var n int
		is.NoErr(tx.QueryRow(ctx, `SELECT count(*) FROM conversation_entries WHERE settings_id = 'b'`).Scan(&n))
		is.Equal(n, 0) // b's entries are invisible to a
		tag, err := tx.Exec(ctx, `UPDATE settings_documents SET data = '{}' WHERE settings_id = 'b'`)
		is.NoErr(err)
		is.Equal(tag.RowsAffected(), int64(0)) // b's settings cannot be changed as a
		return nil
	})
	is.NoErr(err)

	// Writing a row for b while named a is refused.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'a', true)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO settings_documents (settings_id, kind, schema_version, revision, data)
			VALUES ('b', 'planted', 1, 1, '{}')`)
		return err
	})
	is.True(err != nil) // row-level security refuses another tenant's row
	t.Log(err)

	// The store's own reads stay walled too.
	got, err := s.LoadAll(ctx, "a", "conv-b")
	is.True(errors.Is(err, storage.ErrNotFound))
	is.Equal(len(got), 0)
}

// TestOwnerWithoutTenant shows the policy binds the tables' owner as well.
func TestOwnerWithoutTenant(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, _ := newStore(t)
	ctx := t.Context()
	_, err := s.PutSettings(ctx, storage.Document{SettingsID: "a", Kind: "k", Data: []byte(`{}`)}, 0)
	is.NoErr(err)
	var n int
	is.NoErr(pool.QueryRow(ctx, `SELECT count(*) FROM settings_documents`).Scan(&n))
	is.Equal(n, 0) // without typeshift.settings_id even the owner sees nothing
}
