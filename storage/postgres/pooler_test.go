package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// TestTenantsInterleavedOnOneConnection alternates two tenants' statements, with the same conversation id and
// settings kind, on a pool of one connection (directly: one server connection; through the pooler: the server
// connections it hands that client): each reads its own rows only, and between their transactions the
// connection carries no tenant and sees no row, as a server connection a pooler hands to the next client must.
func TestTenantsInterleavedOnOneConnection(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	schema, cfg := pgtest.Schema(t)
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	is.NoErr(err)
	t.Cleanup(pool.Close)
	_, err = postgres.Migrate(t.Context(), pool)
	is.NoErr(err)
	s := openStore(t, pool, &postgres.Options{Channel: schema})
	t.Cleanup(s.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	// between reads what the connection carries between two of the store's transactions.
	pids := map[uint32]bool{}
	between := func(after string) {
		t.Helper()
		var pid uint32
		var tenant string
		var docs, convs, entries int
		err := pool.QueryRow(ctx, `SELECT pg_backend_pid(), coalesce(current_setting('typeshift.settings_id', true), ''),
			(SELECT count(*) FROM settings_documents), (SELECT count(*) FROM conversations),
			(SELECT count(*) FROM conversation_entries)`).Scan(&pid, &tenant, &docs, &convs, &entries)
		is.NoErr(err)
		pids[pid] = true
		if tenant != "" || docs+convs+entries != 0 {
			t.Fatalf("after %s the connection carries tenant %q and sees %d documents, %d conversations, %d entries",
				after, tenant, docs, convs, entries)
		}
	}
	revs := map[string]int64{}
	const rounds = 10
	for round := range rounds {
		for _, tenant := range []string{"a", "b"} {
			data := fmt.Appendf(nil, `{"owner":%q,"round":%d}`, tenant, round)
			doc, err := s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "k", Data: data}, revs[tenant])
			is.NoErr(err)
			revs[tenant] = doc.Revision
			between("PutSettings of " + tenant)

			cl, err := s.BeginRun(ctx, storage.RunBegin{SettingsID: tenant, ConversationID: "shared", Owner: "run-" + tenant, TTL: time.Minute, Kinds: []string{"k"}})
			is.NoErr(err)
			between("BeginRun of " + tenant)
			is.Equal(len(cl.Entries), round) // the tenant's own entries, none of the other's
			for _, e := range cl.Entries {
				var v struct{ Owner string }
				is.NoErr(json.Unmarshal(e.Data, &v))
				is.Equal(v.Owner, tenant)
			}
			var got struct{ Owner string }
			is.NoErr(json.Unmarshal(cl.Settings["k"].Data, &got))
			is.Equal(got.Owner, tenant) // the tenant's own document
			_, err = s.EndRun(ctx, storage.RunEnd{Claim: cl.Claim, Entries: []storage.Entry{{Type: storage.EntryInput, Data: data}}})
			is.NoErr(err)
			between("EndRun of " + tenant)

			convs, err := s.List(ctx, tenant, storage.ListOptions{})
			is.NoErr(err)
			is.Equal(len(convs), 1)
			between("List of " + tenant)
		}
	}
	for _, tenant := range []string{"a", "b"} {
		entries, err := s.LoadAll(ctx, tenant, "shared")
		is.NoErr(err)
		is.Equal(len(entries), rounds)
	}
	if !pgtest.Pooled() {
		is.Equal(len(pids), 1) // every statement went over one server connection
	}
	t.Logf("%d server connection(s) carried the two tenants' statements", len(pids))
}

// TestConfigErrors: a store whose Options.Direct reaches another schema is refused, with an error naming the
// setting; behind a pooler, so is a store without Options.Direct, one whose Direct goes through the pooler too,
// and one whose pool caches prepared statements.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, schema := newPool(t)
	_, other := newPool(t)
	wrong := pgtest.Direct(t, other)
	if wrong == nil {
		wrong = pool.Config().ConnConfig.Copy()
		wrong.RuntimeParams["search_path"] = other
	}
	type tc struct {
		name    string
		pool    *pgxpool.Pool
		opts    *postgres.Options
		setting string
	}
	cases := []tc{{"direct to another schema", pool, &postgres.Options{Direct: wrong}, "Options.Direct"}}
	if pgtest.Pooled() {
		cacheCfg := pool.Config().Copy()
		cacheCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
		cache, err := pgxpool.NewWithConfig(ctx, cacheCfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cache.Close)
		cases = append(cases,
			tc{"no direct connection behind a pooler", pool, nil, "Options.Direct"},
			tc{"a direct connection through the pooler", pool, &postgres.Options{Direct: pool.Config().ConnConfig.Copy()}, "Options.Direct"},
			tc{"cached statements behind a pooler", cache, &postgres.Options{Direct: pgtest.Direct(t, schema)}, "default_query_exec_mode"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			s, err := postgres.New(ctx, c.pool, c.opts)
			if err == nil {
				s.Close()
			}
			var ce *postgres.ConfigError
			is.True(errors.As(err, &ce)) // refused at start
			is.Equal(ce.Setting, c.setting)
			t.Log(err)
		})
	}
	if pgtest.Pooled() {
		is := is.New(t)
		s, err := postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.Direct(t, schema)})
		is.NoErr(err) // the pool behind the pooler in exec mode, and a direct connection: accepted
		is.True(s.Pooled())
		s.Close()
	}
}

// BenchmarkPairedPoolerAppend reports what the pooler costs a run's step: an Append of one entry through the
// pooler (pooled-ns/op) and directly (direct-ns/op) on the same schema, alternating which goes first, and their
// ratio. It needs TYPESHIFT_TEST_POOLER_URL.
func BenchmarkPairedPoolerAppend(b *testing.B) {
	if !pgtest.Pooled() {
		b.Skip(pgtest.EnvPoolerURL + " is not set: no pooler to compare with")
	}
	schema, cfg := pgtest.Schema(b)
	ctx := context.Background()
	pooledPool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pooledPool.Close)
	if _, err := postgres.Migrate(ctx, pooledPool); err != nil {
		b.Fatal(err)
	}
	pooled := openStore(b, pooledPool, &postgres.Options{Channel: schema})
	b.Cleanup(pooled.Close)
	dc, err := pgxpool.ParseConfig("")
	if err != nil {
		b.Fatal(err)
	}
	dc.ConnConfig = pgtest.Direct(b, schema)
	directPool, err := pgxpool.NewWithConfig(ctx, dc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(directPool.Close)
	direct := openStore(b, directPool, &postgres.Options{Channel: schema})
	b.Cleanup(direct.Close)

	e := storage.Entry{Type: storage.EntryResponse, RunID: "run-1", Agent: "support", Author: "assistant",
		Data: []byte(`{"role":"assistant","parts":[{"type":"text","text":"The printer ticket is closed."}]}`)}
	claim := func(s *postgres.Store, id string) storage.Claim {
		c, err := s.Claim(ctx, "tenant", id, "bench", time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	cp, cd := claim(pooled, "via-pooler"), claim(direct, "direct")
	var tp, td time.Duration
	step := func(s *postgres.Store, c storage.Claim, total *time.Duration) {
		t0 := time.Now()
		if _, err := s.Append(ctx, c, e); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(t0)
	}
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			step(pooled, cp, &tp)
			step(direct, cd, &td)
		} else {
			step(direct, cd, &td)
			step(pooled, cp, &tp)
		}
		n++
	}
	b.ReportMetric(float64(tp.Nanoseconds())/float64(n), "pooled-ns/op")
	b.ReportMetric(float64(td.Nanoseconds())/float64(n), "direct-ns/op")
	b.ReportMetric(float64(tp)/float64(td), "pooled/direct")
}
