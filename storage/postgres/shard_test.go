package postgres_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"
)

// A distributed Postgres that shards by tenant (Citus, with settings_id as every table's distribution column)
// keeps a tenant's rows on one node and sends a statement to that node alone when the statement filters every
// table it reads or writes by the tenant. These tests check that the store's schema and statements fit: the
// tenant leads every tenant table's primary key, unique keys and foreign keys, and every statement the store
// sends filters each tenant table it names by settings_id. docs/scaling.md maps the schema onto Citus.

// qShardKeys lists, for each table of the schema first on the search_path (the migrations' bookkeeping
// excepted), whether it has a settings_id column, and each of its primary, unique and foreign keys with the
// columns of the key in order and, for a foreign key, the referenced columns.
const qShardKeys = `SELECT c.relname::text,
	EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'settings_id' AND NOT a.attisdropped),
	coalesce(k.conname::text, ''), coalesce(k.contype::text, ''),
	coalesce((SELECT array_agg(a.attname::text ORDER BY u.n) FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, n)
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum), '{}'),
	coalesce((SELECT array_agg(a.attname::text ORDER BY u.n) FROM unnest(k.confkey) WITH ORDINALITY AS u(attnum, n)
		JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum), '{}')
FROM pg_class c
LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype IN ('p', 'u', 'f')
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
  AND c.relname <> 'typeshift_schema_migrations'
ORDER BY 1, 3`

// shardingProblems returns what keeps the schema from being distributed by settings_id: a table without the
// column or without a primary key, and a key that does not start with it.
func shardingProblems(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, err := pool.Query(ctx, qShardKeys)
	if err != nil {
		return nil, err
	}
	type table struct {
		tenant, pk bool
		problems   []string
	}
	tables := map[string]*table{}
	var names []string
	for rows.Next() {
		var name, key, kind string
		var tenant bool
		var cols, refs []string
		if err := rows.Scan(&name, &tenant, &key, &kind, &cols, &refs); err != nil {
			return nil, err
		}
		tb := tables[name]
		if tb == nil {
			tb = &table{tenant: tenant}
			tables[name] = tb
			names = append(names, name)
		}
		if key == "" {
			continue
		}
		what := map[string]string{"p": "primary key", "u": "unique key", "f": "foreign key"}[kind]
		tb.pk = tb.pk || kind == "p"
		if len(cols) == 0 || cols[0] != "settings_id" {
			tb.problems = append(tb.problems, fmt.Sprintf("table %s: %s %s (%s) does not start with settings_id",
				name, what, key, strings.Join(cols, ", ")))
		}
		if kind == "f" && (len(refs) == 0 || refs[0] != "settings_id") {
			tb.problems = append(tb.problems, fmt.Sprintf("table %s: foreign key %s references (%s), not the tenant first",
				name, key, strings.Join(refs, ", ")))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		tb := tables[name]
		if !tb.tenant {
			out = append(out, fmt.Sprintf("table %s has no settings_id column", name))
			continue
		}
		if !tb.pk {
			out = append(out, fmt.Sprintf("table %s has no primary key", name))
		}
		out = append(out, tb.problems...)
	}
	return out, nil
}

// TestShardingSchema: the migrated schema has the tenant leading every key of every table; a planted table
// without the tenant in its key, and one whose foreign key leaves it out, are reported.
func TestShardingSchema(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, _ := newPool(t)
	ctx := t.Context()
	problems, err := shardingProblems(ctx, pool)
	is.NoErr(err)
	for _, p := range problems {
		t.Error(p)
	}
	_, err = pool.Exec(ctx, `CREATE TABLE planted_notes (
		id          bigint PRIMARY KEY,
		settings_id text   NOT NULL,
		note        text   NOT NULL)`)
	is.NoErr(err)
	_, err = pool.Exec(ctx, `CREATE TABLE planted_marks (
		settings_id     text NOT NULL,
		conversation_id text NOT NULL,
		mark            text NOT NULL,
		PRIMARY KEY (settings_id, conversation_id, mark),
		UNIQUE (mark),
		FOREIGN KEY (conversation_id, settings_id) REFERENCES conversations (conversation_id, settings_id))`) // key in another order

	is.NoErr(err)
	problems, err = shardingProblems(ctx, pool)
	is.NoErr(err)
	joined := strings.Join(problems, "\n")
	t.Log(joined)
	is.True(strings.Contains(joined, "table planted_notes: primary key planted_notes_pkey (id) does not start with settings_id"))
	is.True(strings.Contains(joined, "table planted_marks: unique key"))
	is.True(strings.Contains(joined, "table planted_marks: foreign key"))
}

// shardTables are the tables whose rows belong to a tenant: the store's (tenantTables in tenancy.go).
var shardTables = []string{"settings_documents", "conversations", "conversation_entries", "conversation_events",
	"conversation_steering", "conversation_watchers", "background_runs", "budget_spend", "budget_runs"}

var (
	// tableUse finds a tenant table named where a statement reads or writes it.
	tableUse = regexp.MustCompile(`\b(?:from|join|update|into|using)\s+(` + strings.Join(shardTables, "|") + `)\b`)
	// tenantFilter finds a condition that pins settings_id: to a parameter, or to another table's settings_id
	// (a join within the tenant).
	tenantFilter = regexp.MustCompile(`\b(?:[a-z_]+\.)?settings_id\s*=\s*(?:\$\d+|[a-z_]+\.settings_id)\b`)
	// tenantInsert finds an INSERT whose first column is settings_id, taken from a parameter (a VALUES or a
	// SELECT that starts with it).
	tenantInsert = regexp.MustCompile(`\binsert\s+into\s+[a-z_]+(?:\s+as\s+[a-z_]+)?\s*\(\s*settings_id\b[^)]*\)\s*(?:values\s*\(\s*|select\s+)\$\d+`)
)

// statementProblems says why sql, a statement the store sends, would not go to one tenant's node: each tenant
// table it reads or writes needs a condition on settings_id (an INSERT's row names its tenant itself).
func statementProblems(sql string) []string {
	s := strings.ToLower(strings.Join(strings.Fields(sql), " "))
	uses := tableUse.FindAllStringSubmatch(s, -1)
	inserts := len(tenantInsert.FindAllString(s, -1))
	filters := len(tenantFilter.FindAllString(s, -1))
	if len(uses) == 0 {
		return nil
	}
	need := 0
	var tables []string
	for _, u := range uses {
		tables = append(tables, u[1])
		need++
	}
	if filters+inserts >= need {
		return nil
	}
	return []string{fmt.Sprintf("%d uses of tenant tables (%s) and %d conditions on settings_id: %.200s",
		need, strings.Join(tables, ", "), filters+inserts, s)}
}

// TestStatementProblems: the check of the statements' text finds the statements that leave the tenant out.
func TestStatementProblems(t *testing.T) {
	cases := []struct {
		sql string
		ok  bool
	}{
		{`SELECT data FROM settings_documents WHERE settings_id = $1 AND kind = $2`, true},
		{`SELECT data FROM settings_documents WHERE kind = $2`, false},
		{`SELECT count(*) FROM conversations`, false},
		{`INSERT INTO conversation_steering (settings_id, conversation_id, data) VALUES ($1, $2, $3::jsonb)`, true},
		{`INSERT INTO conversation_steering (conversation_id, data) VALUES ($2, $3::jsonb)`, false},
		{`DELETE FROM conversation_events e USING (SELECT settings_id, conversation_id, id FROM conversation_events
			WHERE created_at < now() LIMIT 10) old WHERE e.settings_id = old.settings_id AND e.id = old.id`, false},
		{`SELECT e.id FROM conversations c JOIN conversation_entries e ON e.conversation_id = c.conversation_id
			WHERE c.settings_id = $1`, false},
		{`SELECT e.id FROM conversations c JOIN conversation_entries e ON e.settings_id = c.settings_id
			AND e.conversation_id = c.conversation_id WHERE c.settings_id = $1`, true},
		{`SELECT pg_notify($1, $2)`, true},
	}
	for _, c := range cases {
		got := statementProblems(c.sql)
		if (len(got) == 0) != c.ok {
			t.Errorf("statementProblems(%q) = %q, want ok %v", c.sql, got, c.ok)
		}
	}
}

// statementRecorder is a pgx tracer that keeps the text of every statement sent, alone or in a batch.
type statementRecorder struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (r *statementRecorder) add(sql string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[sql] = true
}

// TraceQueryStart implements pgx.QueryTracer.
func (r *statementRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (r *statementRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer.
func (r *statementRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	for _, q := range d.Batch.QueuedQueries {
		r.add(q.SQL)
	}
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (r *statementRecorder) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (r *statementRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// check reports, as errors of t, every recorded statement of the store that does not filter by the tenant;
// the tests' own statements (which t.Cleanup and the suite's corruption of rows send) are told apart by
// being absent from the store's package: a statement is the store's when it matches none of skip.
func (r *statementRecorder) check(t *testing.T, skip ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sqls []string
	for sql := range r.seen {
		sqls = append(sqls, sql)
	}
	slices.Sort(sqls)
	checked := 0
	for _, sql := range sqls {
		if slices.ContainsFunc(skip, func(p string) bool { return strings.Contains(sql, p) }) {
			continue
		}
		checked++
		for _, p := range statementProblems(sql) {
			t.Errorf("a statement of the store does not filter by the tenant: %s", p)
		}
	}
	t.Logf("%d distinct statements of the store checked for a tenant filter", checked)
	if checked < 20 {
		t.Errorf("only %d statements recorded: the recorder missed the store's", checked)
	}
}
