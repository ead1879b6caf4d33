// Package pgtest gives tests a Postgres schema of their own, in the database
// named by TYPESHIFT_TEST_DATABASE_URL.
//
// Without the variable the tests that need a database skip, saying how to
// run them; when CI=true they fail instead, so a CI job cannot pass by
// skipping. On a Debian machine with PostgreSQL 15:
//
//	eval "$(sudo bash .ci/postgres.sh)"
//	go test ./storage/...
//
// # Through a pooler
//
// With TYPESHIFT_TEST_POOLER_URL set as well, naming the same database through
// a pooler in transaction pooling mode (PgBouncer, as .ci/pgbouncer.sh starts
// it), the pools that [Schema] and [Pool] return reach the schema through the
// pooler, and [Direct] gives the direct connection a store over them needs
// for what holds a session. A pooler in transaction mode passes no
// search_path from the client to the server, so each test then gets a
// database of its own, named as its schema, whose search_path setting names
// the schema; it is dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnvURL names the variable that holds the test database's URL.
const EnvURL = "TYPESHIFT_TEST_DATABASE_URL"

// EnvPoolerURL names the variable that may hold the test database's URL
// through a pooler in transaction pooling mode.
const EnvPoolerURL = "TYPESHIFT_TEST_POOLER_URL"

// Pooled reports whether the tests reach their schemas through a pooler
// (TYPESHIFT_TEST_POOLER_URL is set).
func Pooled() bool { return os.Getenv(EnvPoolerURL) != "" }

// URL returns the test database's URL, or ends the test: a skip, or a
// failure when CI=true.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(EnvURL)
	if url == "" {
		const how = EnvURL + ` is not set; to run the Postgres tests: eval "$(sudo bash .ci/postgres.sh)"`
		if os.Getenv("CI") == "true" {
			t.Fatal(how)
		}
		t.Skip(how)
	}
	return url
}

// Schema creates a schema with a random name and drops it, with everything
// in it, when the test ends. It returns the schema's name and a pool config
// whose connections put it first on their search_path: directly, or through
// the pooler when [Pooled] (in a database of the test's own, see the package
// doc).
func Schema(t testing.TB) (string, *pgxpool.Config) {
	t.Helper()
	url := URL(t)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("parsing %s: %v", EnvURL, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "ts_test_" + hex.EncodeToString(b[:])
	if Pooled() {
		createDatabase(t, cfg.ConnConfig, schema)
		return schema, Config(t, schema)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		t.Fatalf("connecting to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("creating schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	return schema, cfg
}

// createDatabase creates the database of a pooled test, named and holding a
// schema named as schema, which its search_path setting names, and drops it
// when the test ends (with FORCE: the pooler keeps server connections open).
func createDatabase(t testing.TB, base *pgx.ConnConfig, schema string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id := pgx.Identifier{schema}.Sanitize()
	conn, err := pgx.ConnectConfig(ctx, base.Copy())
	if err != nil {
		t.Fatalf("connecting to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+id); err != nil {
		t.Fatalf("creating database %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		conn, err := pgx.ConnectConfig(ctx, base.Copy())
		if err != nil {
			t.Errorf("dropping database %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		// FORCE ends the sessions of the test's role; another role's (a test's
		// other tenant, through the pooler) end soon after their pools close.
		for {
			_, err := conn.Exec(ctx, "DROP DATABASE "+id+" WITH (FORCE)")
			if err == nil {
				return
			}
			if ctx.Err() != nil {
				t.Errorf("dropping database %s: %v", schema, err)
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
	in := base.Copy()
	in.Database = schema
	db, err := pgx.ConnectConfig(ctx, in)
	if err != nil {
		t.Fatalf("connecting to database %s: %v", schema, err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, "CREATE SCHEMA "+id+"; ALTER DATABASE "+id+" SET search_path = "+id); err != nil {
		t.Fatalf("creating schema %s: %v", schema, err)
	}
}

// Config returns a pool config for a schema [Schema] made, possibly in
// another process of the test: through the pooler when [Pooled], directly
// otherwise.
func Config(t testing.TB, schema string) *pgxpool.Config {
	t.Helper()
	if !Pooled() {
		cfg, err := pgxpool.ParseConfig(URL(t))
		if err != nil {
			t.Fatalf("parsing %s: %v", EnvURL, err)
		}
		cfg.ConnConfig.RuntimeParams["search_path"] = schema
		return cfg
	}
	cfg, err := pgxpool.ParseConfig(os.Getenv(EnvPoolerURL))
	if err != nil {
		t.Fatalf("parsing %s: %v", EnvPoolerURL, err)
	}
	cfg.ConnConfig.Database = schema
	return cfg
}

// Direct returns the configuration of a direct connection to schema, for
// the store's Options.Direct, when the tests go through a pooler, and nil
// otherwise (a store over a direct pool opens its sessions from the pool's
// configuration).
func Direct(t testing.TB, schema string) *pgx.ConnConfig {
	t.Helper()
	if !Pooled() {
		return nil
	}
	return directConfig(t, URL(t), schema)
}

// DirectPool returns a pool of direct connections to schema, closed when
// the test ends, when the tests go through a pooler, and nil otherwise: for
// what holds a session beside a store, such as a job queue's client.
func DirectPool(t testing.TB, schema string) *pgxpool.Pool {
	t.Helper()
	cfg := Direct(t, schema)
	if cfg == nil {
		return nil
	}
	pc, err := pgxpool.ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	pc.ConnConfig = cfg
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		t.Fatalf("opening a direct pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// DirectOf is [Direct] for the schema of a pool from [Pool] or [Schema]'s
// config.
func DirectOf(t testing.TB, pool *pgxpool.Pool) *pgx.ConnConfig {
	t.Helper()
	if !Pooled() {
		return nil
	}
	return Direct(t, pool.Config().ConnConfig.Database)
}

// directConfig returns url's configuration for schema: in its database, or
// in the schema's own when [Pooled].
func directConfig(t testing.TB, url, schema string) *pgx.ConnConfig {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatalf("parsing a test URL: %v", err)
	}
	if Pooled() {
		cfg.Database = schema
	}
	cfg.RuntimeParams["search_path"] = schema
	return cfg
}

// Pool returns a pool on a fresh schema (see [Schema]), closed when the test
// ends, before the schema is dropped.
func Pool(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	schema, cfg := Schema(t)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("opening a pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, schema
}
