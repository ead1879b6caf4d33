package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

// runVerifyStore is "typeshift verify-store": it runs the rules every store
// keeps (package storetest) against a Postgres store and prints what fails.
func runVerifyStore(ctx context.Context, args []string) error {
	return verifyStore(ctx, args, os.Stdout, os.Stderr)
}

func verifyStore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify-store", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: typeshift verify-store [-database-url url] [-schema name] [-memory] [-allow-bypass-rls] [-timeout d]

verify-store checks that a store keeps the rules of package storage: ordering,
compare-and-set, loading from the last summary, deletion, tenancy, leases,
concurrent appends, live events and the text and ids a store accepts. With
Postgres it first checks that row-level security binds the role: it fails,
saying why, when the role is a superuser or BYPASSRLS, or a table lacks
ENABLE or FORCE ROW LEVEL SECURITY or its tenant policy, or River's job table
(where migrate made it) lacks its tenant policy. It writes only under settings ids of its
own (storetest-<random>) and deletes them afterwards, so it may run against a
database in use. It prints each broken rule and exits with status 1 if any.

`)
		fs.PrintDefaults()
	}
	url := fs.String("database-url", os.Getenv(envDatabaseURL), "the database's URL (default $"+envDatabaseURL+")")
	schema := fs.String("schema", "", "the store's schema (default: the first on the role's search_path)")
	useMemory := fs.Bool("memory", false, "verify the in-memory store instead of a database")
	allowBypass := fs.Bool("allow-bypass-rls", false,
		"run the rules even when row-level security does not bind the role (it is reported, not refused)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("verify-store: unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	var store storage.Store
	name := "memory store"
	if *useMemory {
		store = memory.New()
	} else {
		pool, err := openPool(ctx, *url, *schema)
		if err != nil {
			return fmt.Errorf("verify-store: %w", err)
		}
		defer pool.Close()
		have, err := postgres.SchemaVersion(ctx, pool)
		if err != nil {
			return fmt.Errorf("verify-store: %w", err)
		}
		all, err := postgres.Migrations()
		if err != nil {
			return fmt.Errorf("verify-store: %w", err)
		}
		if want := all[len(all)-1].Version; have < want {
			return fmt.Errorf("verify-store: the schema is at version %d, this build needs %d: run typeshift migrate", have, want)
		}
		// Check row-level security first and on its own, so that a role that
		// bypasses it fails with the reason even when every rule would pass:
		// the rules go through the store's API, which filters by tenant itself.
		if err := checkTenancy(ctx, pool); err != nil {
			if !*allowBypass {
				return fmt.Errorf("verify-store: %w", err)
			}
			fmt.Fprintf(stdout, "WARN %v\n", err)
		}
		pg, err := postgres.New(ctx, pool, &postgres.Options{AllowBypassRLS: true})
		if err != nil {
			return fmt.Errorf("verify-store: %w", err)
		}
		defer pg.Close()
		store, name = pg, "Postgres store"
	}

	errs := storetest.Check(ctx, store)
	for _, err := range errs {
		fmt.Fprintf(stdout, "FAIL %v\n", err)
	}
	rules := len(storetest.Rules())
	if len(errs) > 0 {
		return fmt.Errorf("verify-store: the %s broke %d checks of %d rules", name, len(errs), rules)
	}
	fmt.Fprintf(stdout, "ok: the %s keeps all %d rules\n", name, rules)
	return nil
}

// checkTenancy checks the store's tables ([postgres.CheckTenancy]) and, where
// typeshift migrate made River's tables, the tenant policy of its job table
// ([riverqueue.CheckTenancy]).
func checkTenancy(ctx context.Context, pool *pgxpool.Pool) error {
	var river bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('river_job') IS NOT NULL`).Scan(&river); err != nil {
		return fmt.Errorf("checking row-level security: %w", err)
	}
	if river {
		return riverqueue.CheckTenancy(ctx, pool)
	}
	return postgres.CheckTenancy(ctx, pool)
}
