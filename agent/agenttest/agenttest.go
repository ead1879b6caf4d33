// Package agenttest helps an application test its own agents on the stores it runs them on: [EachStore] runs a
// test once on the embedded memory store and once on Postgres, the way pgx's pgxtest runs a test on each kind of
// connection. Pair it with a scripted model from package chattest:
//
//	func TestSupportAnswers(t *testing.T) {
//		agenttest.EachStore(t, func(t *testing.T, store storage.Store) {
//			host, err := agent.NewHost(&Support{}, agent.Config{Store: store,
//				Client: chattest.NewScript(chattest.Text("It ships tomorrow."))})
//			if err != nil {
//				t.Fatal(err)
//			}
//			res, err := host.Run(t.Context(), agent.Text("When does 4711 ship?"),
//				agent.SettingsID("tenant-1"), agent.Conversation("c-1"))
//			...
//		})
//	}
//
// The Postgres run takes a schema of its own in the database named by TYPESHIFT_TEST_DATABASE_URL, migrated for
// the test and dropped when it ends. Without the variable it skips, saying how to run it; with CI=true it fails
// instead, so that a CI job cannot pass by skipping (see package pgtest).
package agenttest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// EachStore runs test as a subtest on each store a host may keep its settings and conversations in: "memory", a
// new memory store, then "postgres", a new Postgres store of its own (see [Postgres]).
func EachStore(t *testing.T, test func(t *testing.T, store storage.Store)) {
	t.Helper()
	t.Run("memory", func(t *testing.T) { test(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) { test(t, Postgres(t)) })
}

// Postgres returns a Postgres store on a schema of its own in the test database, migrated, and closed and dropped
// when the test ends. Without TYPESHIFT_TEST_DATABASE_URL the test skips (or fails, when CI=true).
func Postgres(t testing.TB) *postgres.Store {
	t.Helper()
	_, cfg := pgtest.Schema(t)
	ctx := context.Background()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("agenttest: connecting to the test database: %v", err)
	}
	t.Cleanup(pool.Close)
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatalf("agenttest: migrating the test schema: %v", err)
	}
	s, err := postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatalf("agenttest: opening the store: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}
