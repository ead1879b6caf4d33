package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// envDatabaseURL names the Postgres database that keeps the conversations; without it they are kept in memory.
const envDatabaseURL = "TYPESHIFT_DATABASE_URL"

// envDirectURL names a direct connection to the same database, for the store's LISTEN and lease connections,
// when TYPESHIFT_DATABASE_URL goes through a pooler in transaction mode (see docs/storage.md).
const envDirectURL = "TYPESHIFT_DATABASE_DIRECT_URL"

// openStore returns the store that keeps the agent's conversations and settings: the memory store, or Postgres
// when TYPESHIFT_DATABASE_URL is set, with its schema migrated first. closeStore releases it.
func openStore(ctx context.Context, out io.Writer) (store storage.Store, closeStore func(), err error) {
	url := os.Getenv(envDatabaseURL)
	if url == "" {
		return memory.New(), func() {}, nil
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", envDatabaseURL, err)
	}
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("migrating the database: %w", err)
	}
	fmt.Fprintln(out, envDatabaseURL+" is set: keeping the conversation in Postgres.")
	var opts postgres.Options
	if direct := os.Getenv(envDirectURL); direct != "" {
		if opts.Direct, err = pgx.ParseConfig(direct); err != nil {
			pool.Close()
			return nil, nil, fmt.Errorf("%s: %w", envDirectURL, err)
		}
	}
	s, err := postgres.New(ctx, pool, &opts)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return s, func() { s.Close(); pool.Close() }, nil
}
