package riverqueue

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/typeshift-go/typeshift/storage/postgres"
)

// qJobPolicy puts River's job table under a tenant policy for the roles
// that do not own it: a tenant's session sees (and may insert, cancel or
// delete) only the jobs whose arguments name its tenant. Security is
// enabled, not forced: the table's owner, the role the workers run as,
// fetches and rescues every tenant's jobs, which hold ids and nothing else.
// The statements run on every migration, so that a River upgrade that
// recreates the table gets its policy again.
const qJobPolicy = `ALTER TABLE river_job ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant ON river_job;
CREATE POLICY tenant ON river_job
	USING (args->>'settings_id' = current_setting('typeshift.settings_id', true))
	WITH CHECK (args->>'settings_id' = current_setting('typeshift.settings_id', true))`

// Migrate applies, to the schema first on the pool's search_path, the Postgres
// store's migrations ([postgres.Migrate]), then River's, then the tenant
// policy of River's job table, each step in a transaction under an advisory
// lock so that instances starting together are safe. It returns the store's versions it
// applied and River's.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (store, river []int, err error) {
	store, err = postgres.Migrate(ctx, pool)
	if err != nil {
		return store, nil, err
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return store, nil, fmt.Errorf("riverqueue: migrate: %w", err)
	}
	// River's migrations add enum values, which Postgres does not let a
	// transaction use before it commits: they run each in a transaction of
	// its own, which first takes a transaction-scoped lock, so that instances
	// starting together take turns and a pooler in transaction mode between
	// holds nothing across transactions.
	const key = `hashtextextended('typeshift.river.migrate.' || coalesce(current_schema(), ''), 0)`
	locked := func(fn func(tx pgx.Tx) error) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+key+`)`); err != nil {
				return fmt.Errorf("taking the advisory lock: %w", err)
			}
			return fn(tx)
		})
	}
	for err == nil {
		var res *rivermigrate.MigrateResult
		err = locked(func(tx pgx.Tx) error {
			var err error
			res, err = migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
			return err
		})
		if err != nil || len(res.Versions) == 0 {
			break
		}
		for _, v := range res.Versions {
			river = append(river, v.Version)
		}
	}
	if err == nil {
		err = locked(func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, qJobPolicy)
			return err
		})
	}
	if err != nil {
		return store, nil, fmt.Errorf("riverqueue: migrate: %w", err)
	}
	return store, river, nil
}

// qJobTenancy reads whether River's job table has row-level security enabled
// and its tenant policy, and whether the current role is bound by it (it is
// not when it owns the table, as the workers' role does, or bypasses RLS).
const qJobTenancy = `SELECT c.oid IS NOT NULL,
	coalesce(c.relrowsecurity, false),
	EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant'
		AND p.polcmd = '*' AND p.polpermissive AND p.polroles = '{0}'
		AND pg_get_expr(p.polqual, p.polrelid) LIKE '%current_setting(''typeshift.settings_id''%'
		AND pg_get_expr(p.polwithcheck, p.polrelid) = pg_get_expr(p.polqual, p.polrelid)),
	(SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid AND p.polpermissive AND p.polname <> 'tenant')
FROM (SELECT to_regclass('river_job') AS oid) r
LEFT JOIN pg_class c ON c.oid = r.oid`

// CheckTenancy reports an error when River's job table on the pool's
// search_path lacks what keeps tenants' sessions from reading each other's
// jobs: the table, ENABLE ROW LEVEL SECURITY, or its tenant policy, or when
// another permissive policy widens it. It checks the store's tables first
// ([postgres.CheckTenancy]).
func CheckTenancy(ctx context.Context, pool *pgxpool.Pool) error {
	if err := postgres.CheckTenancy(ctx, pool); err != nil {
		return err
	}
	var exists, enabled, policy bool
	var others int64
	if err := pool.QueryRow(ctx, qJobTenancy).Scan(&exists, &enabled, &policy, &others); err != nil {
		return fmt.Errorf("riverqueue: checking row-level security: %w", err)
	}
	var problems []string
	switch {
	case !exists:
		problems = append(problems, "table river_job is missing (run typeshift migrate)")
	default:
		if !enabled {
			problems = append(problems, "table river_job lacks ENABLE ROW LEVEL SECURITY")
		}
		if !policy {
			problems = append(problems, "table river_job lacks its policy tenant on args->>'settings_id'")
		}
		if others > 0 {
			problems = append(problems, fmt.Sprintf("table river_job has %d permissive policies besides tenant", others))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("riverqueue: row-level security does not keep tenants' jobs apart: %s (run typeshift migrate)",
			strings.Join(problems, "; "))
	}
	return nil
}
