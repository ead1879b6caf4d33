// Package pgtest gives tests a Postgres schema of their own, in the database
// named by TYPESHIFT_TEST_DATABASE_URL.
//
// Without the variable the tests that need a database skip, saying how to
// run them; when CI=true they fail instead, so a CI job cannot pass by
// skipping. On a Debian machine with PostgreSQL 15:
//
//	eval "$(sudo bash .ci/postgres.sh)"
//	go test ./storage/...
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
// whose connections put it first on their search_path.
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
