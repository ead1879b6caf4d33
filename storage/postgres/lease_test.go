package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// onePool returns a migrated store over a pool of one connection whose sessions carry the schema's name as their
// application_name.
func onePool(t *testing.T) (*postgres.Store, *pgxpool.Pool, string) {
	t.Helper()
	schema, cfg := pgtest.Schema(t)
	cfg.MaxConns = 1
	cfg.ConnConfig.RuntimeParams["application_name"] = schema
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	direct := pgtest.Direct(t, schema) // the lease connection's, behind a pooler
	if direct != nil {
		direct.RuntimeParams["application_name"] = schema
	}
	s, err := postgres.New(t.Context(), pool, &postgres.Options{Direct: direct})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, pool, schema
}

// TestRenewLeasesBesidePool renews leases while every connection of the pool is checked out: the renewal does
// not wait for the pool. It also survives the loss of its connection.
func TestRenewLeasesBesidePool(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, name := onePool(t)
	ctx := t.Context()
	var claims []storage.Claim
	for _, sid := range []string{"tenant-a", "tenant-b"} {
		for _, id := range []string{"one", "two"} {
			c, err := s.Claim(ctx, sid, id, "test", time.Minute)
			is.NoErr(err)
			claims = append(claims, c)
		}
	}
	held, err := pool.Acquire(ctx)
	is.NoErr(err)
	defer held.Release()

	for round := range 2 {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		res, err := s.RenewRuns(rctx, claims, time.Hour)
		cancel()
		is.NoErr(err) // renewed while the pool has no free connection
		is.Equal(len(res), len(claims))
		for i, r := range res {
			is.NoErr(r.Err)
			is.Equal(r.Claim.Token, claims[i].Token)
			is.True(r.Claim.ExpiresAt.After(time.Now().Add(30 * time.Minute)))
		}
		if round == 0 {
			// End the renewal's connection from the server's side; the next renewal fails or reconnects, and the
			// one after it renews.
			var ended int
			err := held.QueryRow(ctx, `WITH target AS MATERIALIZED (
				SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid())
				SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM target`, name).Scan(&ended)
			is.NoErr(err)
			is.Equal(ended, 1) // the renewal's own connection, beside the pool's one
			_, _ = s.RenewRuns(ctx, claims, time.Hour)
		}
	}
}
