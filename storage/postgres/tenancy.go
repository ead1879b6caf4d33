package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// tenantTables lists the tables of the store's schema that hold tenants' rows; each
// must have row-level security enabled and forced and its tenant policy.
var tenantTables = []string{"settings_documents", "conversations", "conversation_entries", "conversation_events",
	"conversation_steering", "conversation_watchers", "background_runs", "budget_spend", "budget_runs"}

// TenancyError reports that row-level security would not keep the tenants of
// the store apart: the role the pool's connections run as bypasses it, or a
// table of the schema lacks a part of its guard. New returns it unless
// [Options.AllowBypassRLS] is set; Check returns it always.
type TenancyError struct {
	// Role is the role the store's statements run as (current_user of a
	// connection of the pool), SessionRole the role it logged in as.
	Role, SessionRole string
	// Problems says what is wrong, one finding each.
	Problems []string
}

// Error says what is wrong and what to do about it.
func (e *TenancyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "postgres: row-level security does not keep tenants apart for role %q: %s",
		e.Role, strings.Join(e.Problems, "; "))
	b.WriteString(". Connect as a role that is neither a superuser nor BYPASSRLS nor the owner of tables without" +
		" FORCE ROW LEVEL SECURITY, and run typeshift migrate on a schema of its own" +
		" (set Options.AllowBypassRLS only for migrations and admin tools that must read every tenant)")
	return b.String()
}

// qTenancy reads, in one round trip, what decides whether row-level security
// binds the connection's current role: the role's attributes, and for each
// table whether it exists (resolved on the search_path, as the store's
// statements resolve it), has security enabled and forced, whether the role
// has its owner's privileges (directly or as a member), and whether its one
// permissive policy is the tenant policy over every command and role.
const qTenancy = `
SELECT r.rolname, session_user::text, r.rolsuper, r.rolbypassrls,
	t.name,
	c.oid IS NOT NULL,
	coalesce(c.relrowsecurity, false),
	coalesce(c.relforcerowsecurity, false),
	coalesce(pg_has_role(current_user, c.relowner, 'USAGE'), false),
	EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant'
		AND p.polcmd = '*' AND p.polpermissive AND p.polroles = '{0}'
		AND pg_get_expr(p.polqual, p.polrelid) LIKE '%current_setting(''typeshift.settings_id''%'
		AND pg_get_expr(p.polwithcheck, p.polrelid) = pg_get_expr(p.polqual, p.polrelid)),
	(SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid AND p.polpermissive AND p.polname <> 'tenant')
FROM pg_roles r
CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS t(name, n)
LEFT JOIN pg_class c ON c.oid = to_regclass(t.name)
WHERE r.rolname = current_user
ORDER BY t.n`

// CheckTenancy reports a [*TenancyError] when row-level security would not
// keep the tenants of a store over pool apart: the role a connection of the
// pool runs as (current_user) is a superuser or BYPASSRLS, or a table of the
// schema on its search_path misses ENABLE or FORCE ROW LEVEL SECURITY or its
// tenant policy, or has another permissive policy. New calls it; verify-store
// too.
//
// Role attributes are not inherited in Postgres, so only the current role's
// count; ownership is, so a member of the owner role counts as the owner. The
// check sees the role a connection of the pool has when handed out: the
// login role, or the role an AfterConnect hook chose with SET ROLE. The
// store itself never changes role; code that runs SET ROLE or RESET ROLE on
// the pool's connections later takes the check's place.
func CheckTenancy(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, qTenancy, tenantTables)
	if err != nil {
		return fmt.Errorf("postgres: checking row-level security: %w", err)
	}
	defer rows.Close()
	e := &TenancyError{}
	first := true
	for rows.Next() {
		var (
			super, bypass, exists, enabled, forced, owner, policy bool
			table                                                 string
			others                                                int64
		)
		if err := rows.Scan(&e.Role, &e.SessionRole, &super, &bypass, &table, &exists, &enabled, &forced,
			&owner, &policy, &others); err != nil {
			return fmt.Errorf("postgres: checking row-level security: %w", err)
		}
		if first {
			first = false
			if super {
				e.Problems = append(e.Problems, "the role is a superuser, which row-level security never binds")
			}
			if bypass {
				e.Problems = append(e.Problems, "the role has BYPASSRLS (ALTER ROLE "+quoteIdent(e.Role)+" NOBYPASSRLS)")
			}
		}
		if !exists {
			e.Problems = append(e.Problems, fmt.Sprintf("table %s is missing (run typeshift migrate)", table))
			continue
		}
		if !enabled {
			e.Problems = append(e.Problems, fmt.Sprintf("table %s lacks ENABLE ROW LEVEL SECURITY", table))
		}
		if !forced {
			p := fmt.Sprintf("table %s lacks FORCE ROW LEVEL SECURITY", table)
			if owner {
				p += " and the role owns it, so its policy does not bind the role"
			}
			e.Problems = append(e.Problems, p)
		}
		if !policy {
			e.Problems = append(e.Problems, fmt.Sprintf("table %s lacks its policy tenant on settings_id", table))
		}
		if others > 0 {
			e.Problems = append(e.Problems, fmt.Sprintf("table %s has %d permissive policies besides tenant, which widen what a tenant sees", table, others))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: checking row-level security: %w", err)
	}
	if first {
		return fmt.Errorf("postgres: checking row-level security: current_user is not in pg_roles")
	}
	if len(e.Problems) > 0 {
		return e
	}
	return nil
}

// quoteIdent quotes a role name for the advice in an error.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
