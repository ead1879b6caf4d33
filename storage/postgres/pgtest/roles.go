package pgtest

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Roles that .ci/postgres.sh creates besides the test user.
const (
	// TenantRole is NOLOGIN and binds to row-level security; the test user
	// and BypassRole are members, so they can SET ROLE to it.
	TenantRole = "typeshift_tenant"
	// BypassRole is LOGIN BYPASSRLS, with the test user's password.
	BypassRole = "typeshift_bypass"
)

// EnvSuperuserURL names the variable that may hold a URL of a superuser on
// the test database; tests that need one skip without it.
const EnvSuperuserURL = "TYPESHIFT_TEST_SUPERUSER_URL"

// RoleURL returns the test database's URL with role as the user, keeping the
// test user's password (the roles of .ci/postgres.sh share it).
func RoleURL(t testing.TB, role string) string {
	t.Helper()
	u, err := url.Parse(URL(t))
	if err != nil {
		t.Fatalf("parsing %s: %v", EnvURL, err)
	}
	pw, _ := u.User.Password()
	u.User = url.UserPassword(role, pw)
	return u.String()
}

// Grant gives role what the store needs in schema: usage of the schema and
// of its sequences, and reading and writing its tables. pool must be the
// schema owner's.
func Grant(t testing.TB, pool *pgxpool.Pool, schema, role string) {
	t.Helper()
	s, r := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	_, err := pool.Exec(context.Background(), `GRANT USAGE ON SCHEMA `+s+` TO `+r+`;
		GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA `+s+` TO `+r+`;
		GRANT USAGE ON ALL SEQUENCES IN SCHEMA `+s+` TO `+r)
	if err != nil {
		t.Fatalf("granting %s to %s: %v", schema, role, err)
	}
}

// RolePool opens a pool on schema that logs in with url, closed when the test
// ends; the connections are direct, to the schema's database when [Pooled]. When setRole is not empty every connection runs SET ROLE setRole
// before the pool hands it out.
func RolePool(t testing.TB, url, schema, setRole string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("parsing a role's URL: %v", err)
	}
	cfg.ConnConfig = directConfig(t, url, schema)
	if setRole != "" {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET ROLE "+pgx.Identifier{setRole}.Sanitize())
			return err
		}
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("opening a pool: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(context.Background()); err != nil {
		t.Fatalf("connecting: %v (run .ci/postgres.sh for the test roles)", err)
	}
	return pool
}

// SuperuserURL returns the value of [EnvSuperuserURL], or skips the test.
func SuperuserURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvSuperuserURL)
	if u == "" {
		t.Skip(EnvSuperuserURL + " is not set: no superuser to test with")
	}
	return u
}
