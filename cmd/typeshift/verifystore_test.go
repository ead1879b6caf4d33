package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// migratedSchema returns a migrated schema and a pool of its owner.
func migratedSchema(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	schema, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	return schema, pool
}

// TestVerifyStoreRefusesBypass runs verify-store as roles that row-level
// security does not bind: it fails and says why, and with
// -allow-bypass-rls it warns and runs the rules.
func TestVerifyStoreRefusesBypass(t *testing.T) {
	schema, owner := migratedSchema(t)
	pgtest.Grant(t, owner, schema, pgtest.BypassRole)
	roles := []struct{ name, url, want string }{
		{"bypassrls", pgtest.RoleURL(t, pgtest.BypassRole), "BYPASSRLS"},
	}
	if url, ok := superuserURL(); ok {
		roles = append(roles, struct{ name, url, want string }{"superuser", url, "superuser"})
	}
	for _, r := range roles {
		t.Run(r.name, func(t *testing.T) {
			is := is.New(t)
			var out, errOut bytes.Buffer
			err := verifyStore(t.Context(), []string{"-database-url", r.url, "-schema", schema}, &out, &errOut)
			is.True(err != nil) // refused
			is.True(strings.Contains(err.Error(), r.want))
			is.True(strings.Contains(err.Error(), "row-level security does not keep tenants apart"))
			is.True(!strings.Contains(out.String(), "ok:")) // and no rule ran

			out.Reset()
			err = verifyStore(t.Context(), []string{"-database-url", r.url, "-schema", schema, "-allow-bypass-rls"}, &out, &errOut)
			is.NoErr(err) // with the opt-in the rules run, and pass
			is.True(strings.HasPrefix(out.String(), "WARN postgres: row-level security"))
			is.True(strings.Contains(out.String(), "ok: the Postgres store keeps all"))
		})
	}
}

// TestVerifyStoreRefusesMissingForce removes FORCE ROW LEVEL SECURITY from
// each table in turn: verify-store fails and names it.
func TestVerifyStoreRefusesMissingForce(t *testing.T) {
	for _, table := range []string{"settings_documents", "conversations", "conversation_entries", "conversation_events",
		"background_runs"} {
		t.Run(table, func(t *testing.T) {
			is := is.New(t)
			schema, owner := migratedSchema(t)
			_, err := owner.Exec(t.Context(), `ALTER TABLE `+table+` NO FORCE ROW LEVEL SECURITY`)
			is.NoErr(err)
			var out, errOut bytes.Buffer
			err = verifyStore(t.Context(), []string{"-database-url", pgtest.URL(t), "-schema", schema}, &out, &errOut)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), "table "+table+" lacks FORCE ROW LEVEL SECURITY and the role owns it"))
		})
	}
}

// TestVerifyStoreRefusesRiverWithoutPolicy: where typeshift migrate made River's tables, verify-store fails when
// River's job table lacks its tenant policy, which keeps tenants' sessions from reading each other's jobs.
func TestVerifyStoreRefusesRiverWithoutPolicy(t *testing.T) {
	is := is.New(t)
	schema, _ := pgtest.Schema(t)
	url := pgtest.URL(t)
	var out, errOut bytes.Buffer
	is.NoErr(migrate(t.Context(), []string{"-database-url", url, "-schema", schema}, &out, &errOut))
	owner := pgtest.RolePool(t, url, schema, "")
	_, err := owner.Exec(t.Context(), `DROP POLICY tenant ON river_job`)
	is.NoErr(err)
	err = verifyStore(t.Context(), []string{"-database-url", url, "-schema", schema}, &out, &errOut)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "table river_job lacks its policy tenant"))
}

// superuserURL returns the URL of a superuser when the environment names one.
func superuserURL() (string, bool) {
	u := os.Getenv(pgtest.EnvSuperuserURL)
	return u, u != ""
}
