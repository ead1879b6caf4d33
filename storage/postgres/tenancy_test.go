package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

var tenantTables = []string{"settings_documents", "conversations", "conversation_entries", "conversation_events",
	"conversation_steering", "conversation_watchers", "background_runs", "budget_spend", "budget_runs"}

// plantRows writes one row for each of the tenants a and b into every table,
// behind the store's back.
func plantRows(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := t.Context()
	for _, tenant := range []string{"a", "b"} {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			for _, q := range []string{
				`SELECT set_config('typeshift.settings_id', $1, true)`,
				`INSERT INTO settings_documents (settings_id, kind, schema_version, revision, data) VALUES ($1, 'k', 1, 1, '{}')`,
				`INSERT INTO conversations (settings_id, conversation_id) VALUES ($1, 'c')`,
				`INSERT INTO conversation_entries (settings_id, conversation_id, seq, type, created_at, schema_version, data)
					VALUES ($1, 'c', 1, 'input', now(), 1, '{}')`,
				`INSERT INTO conversation_events (settings_id, conversation_id, id, body) VALUES ($1, 'c', 1, '\x00')`,
				`INSERT INTO conversation_watchers (settings_id, conversation_id, instance, expires_at) VALUES ($1, 'c', 'i', now())`,
				`INSERT INTO conversation_steering (settings_id, conversation_id, data) VALUES ($1, 'c', '"hi"')`,
				`INSERT INTO background_runs (settings_id, id, job, status) VALUES ($1, 'c', '\x7b7d', 'queued')`,
				`INSERT INTO budget_spend (settings_id, window_kind, window_key, tokens) VALUES ($1, 'day', '2026-12-03', 1)`,
				`INSERT INTO budget_runs (settings_id, run_id, expires_at) VALUES ($1, 'r', now())`,
			} {
				if _, err := tx.Exec(ctx, q, tenant); err != nil {
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// othersVisible counts the rows of tenant b that a transaction of tenant a
// sees in table, through pool.
func othersVisible(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(t.Context(), `SELECT set_config('typeshift.settings_id', 'a', true)`); err != nil {
			return err
		}
		return tx.QueryRow(t.Context(), `SELECT count(*) FROM `+table+` WHERE settings_id = 'b'`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tenancyError returns err as a *postgres.TenancyError, or fails.
func tenancyError(t *testing.T, err error) *postgres.TenancyError {
	t.Helper()
	var te *postgres.TenancyError
	if !errors.As(err, &te) {
		t.Fatalf("want a *postgres.TenancyError, have %v", err)
	}
	return te
}

// TestTenancyGuards removes each guard of each table in a schema of its own:
// New refuses the store, naming the table and what it lacks, and accepts it
// only with AllowBypassRLS; where the removal opens the wall, the table's
// owner (the test user) then sees another tenant's rows, which it does not
// with every guard in place.
func TestTenancyGuards(t *testing.T) {
	t.Parallel()
	guards := []struct {
		name, alter, want string
		opens             bool // another tenant's rows become visible to the owner
	}{
		{"no force", `ALTER TABLE %s NO FORCE ROW LEVEL SECURITY`, "lacks FORCE ROW LEVEL SECURITY and the role owns it", true},
		{"disabled", `ALTER TABLE %s DISABLE ROW LEVEL SECURITY`, "lacks ENABLE ROW LEVEL SECURITY", true},
		{"no policy", `DROP POLICY tenant ON %s`, "lacks its policy tenant", false},
		{"policy widened", `DROP POLICY tenant ON %[1]s; CREATE POLICY tenant ON %[1]s USING (true) WITH CHECK (true)`, "lacks its policy tenant", true},
		{"policy on one command", `DROP POLICY tenant ON %[1]s; CREATE POLICY tenant ON %[1]s FOR SELECT
			USING (settings_id = current_setting('typeshift.settings_id', true))`, "lacks its policy tenant", false},
		{"another permissive policy", `CREATE POLICY everyone ON %s USING (true)`, "permissive policies besides tenant", true},
	}
	for _, table := range tenantTables {
		for _, g := range guards {
			t.Run(table+"/"+g.name, func(t *testing.T) {
				t.Parallel()
				is := is.New(t)
				ctx := t.Context()
				pool, schema := pgtest.Pool(t)
				_, err := postgres.Migrate(ctx, pool)
				is.NoErr(err)
				plantRows(t, pool)
				s, err := postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.Direct(t, schema)})
				is.NoErr(err) // every guard in place: accepted
				s.Close()
				is.Equal(othersVisible(t, pool, table), 0) // every guard in place: b's rows are walled off

				_, err = pool.Exec(ctx, fmt.Sprintf(g.alter, table))
				is.NoErr(err)
				_, err = postgres.New(ctx, pool, nil)
				te := tenancyError(t, err)
				is.Equal(len(te.Problems), 1) // one guard removed, one problem
				is.True(strings.Contains(te.Problems[0], "table "+table+" "))
				is.True(strings.Contains(te.Problems[0], g.want))
				is.True(strings.Contains(err.Error(), "AllowBypassRLS")) // the error says what to do
				is.True(errors.As(postgres.CheckTenancy(ctx, pool), &te))
				if g.opens {
					is.True(othersVisible(t, pool, table) > 0) // the guard was all that kept b's rows from a
				}

				s, err = postgres.New(ctx, pool, &postgres.Options{AllowBypassRLS: true, Direct: pgtest.Direct(t, schema)})
				is.NoErr(err) // the explicit opt-in accepts it
				s.Close()
			})
		}
	}
}

// TestTenancyMissingTable refuses a schema that was never migrated.
func TestTenancyMissingTable(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, _ := pgtest.Pool(t)
	_, err := postgres.New(t.Context(), pool, nil)
	te := tenancyError(t, err)
	is.Equal(len(te.Problems), len(tenantTables))
	is.True(strings.Contains(te.Problems[0], "missing (run typeshift migrate)"))
}

// TestBypassRole connects as a BYPASSRLS role: New refuses it, saying so,
// unless AllowBypassRLS is set, and with it the role indeed reads another
// tenant's rows. A pool of the same login whose connections SET ROLE to a
// role that row-level security binds is accepted: the check is of the role
// the store's statements run as.
func TestBypassRole(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := t.Context()
	owner, schema := pgtest.Pool(t)
	_, err := postgres.Migrate(ctx, owner)
	is.NoErr(err)
	plantRows(t, owner)
	pgtest.Grant(t, owner, schema, pgtest.BypassRole)
	pgtest.Grant(t, owner, schema, pgtest.TenantRole)

	bypass := pgtest.RolePool(t, pgtest.RoleURL(t, pgtest.BypassRole), schema, "")
	_, err = postgres.New(ctx, bypass, nil)
	te := tenancyError(t, err)
	is.Equal(te.Role, pgtest.BypassRole)
	is.Equal(len(te.Problems), 1)
	is.True(strings.Contains(te.Problems[0], "BYPASSRLS"))
	s, err := postgres.New(ctx, bypass, &postgres.Options{AllowBypassRLS: true})
	is.NoErr(err) // the opt-in accepts it
	s.Close()
	for _, table := range tenantTables {
		is.True(othersVisible(t, bypass, table) > 0) // which is why it is refused
	}

	setRole := pgtest.RolePool(t, pgtest.RoleURL(t, pgtest.BypassRole), schema, pgtest.TenantRole)
	s, err = postgres.New(ctx, setRole, nil)
	is.NoErr(err) // SET ROLE to a bound role: accepted
	s.Close()
	for _, table := range tenantTables {
		is.Equal(othersVisible(t, setRole, table), 0) // and bound it is
	}
}

// TestSuperuser connects as a superuser, when the environment names one:
// refused unless AllowBypassRLS is set.
func TestSuperuser(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := t.Context()
	url := pgtest.SuperuserURL(t)
	owner, schema := pgtest.Pool(t)
	_, err := postgres.Migrate(ctx, owner)
	is.NoErr(err)
	super := pgtest.RolePool(t, url, schema, "")
	_, err = postgres.New(ctx, super, nil)
	te := tenancyError(t, err)
	is.True(strings.Contains(te.Problems[0], "superuser"))
	s, err := postgres.New(ctx, super, &postgres.Options{AllowBypassRLS: true})
	is.NoErr(err)
	s.Close()
}
