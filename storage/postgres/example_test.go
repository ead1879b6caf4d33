package postgres_test

import (
	"context"
	"errors"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage/postgres"
)

// New refuses a pool whose role row-level security does not bind, saying
// what is wrong and what to do; an admin tool that must read every tenant
// opts in.
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("TYPESHIFT_DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		log.Fatal(err)
	}
	store, err := postgres.New(ctx, pool, nil)
	var te *postgres.TenancyError
	if errors.As(err, &te) {
		// For instance: the role has BYPASSRLS, or a table lacks FORCE ROW
		// LEVEL SECURITY and the role owns it.
		log.Fatalf("role %s: %v", te.Role, te.Problems)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	// An admin tool, knowingly:
	admin, err := postgres.New(ctx, pool, &postgres.Options{AllowBypassRLS: true})
	if err != nil {
		log.Fatal(err)
	}
	defer admin.Close()
}
