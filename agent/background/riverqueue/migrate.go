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
// policy of River's job table, each part under an advisory lock so that
// instances starting together are safe. It returns the store's versions it
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
	// its own, under a session lock.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return store, nil, fmt.Errorf("riverqueue: migrate: %w", err)
	}
	defer conn.Release()
	const key = `hashtextextended('typeshift.river.migrate.' || coalesce(current_schema(), ''), 0)`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		return store, nil, fmt.Errorf("riverqueue: migrate: taking the advisory lock: %w", err)
	}
	defer func() {
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`); uerr != nil {
			_ = conn.Hijack().Close(context.WithoutCancel(ctx))
		}
	}()
	// Everything runs on the locked connection: another taken from the pool
	// could wait for ever behind instances that hold the pool's other
	// connections while they wait for the lock.
	for err == nil {
		var res *rivermigrate.MigrateResult
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
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
		_, err = conn.Exec(ctx, qJobPolicy)
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
