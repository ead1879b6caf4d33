package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// TestQueryPlans fills a schema with 3,000 conversations (24,000 entries) and
// 2,000 settings documents of 20 tenants, and
// checks that the store's queries are planned on its indexes, not on
// sequential scans.
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, _ := pgtest.Pool(t)
	ctx := t.Context()
	_, err := Migrate(ctx, pool)
	is.NoErr(err)

	const tenants, perTenant, entries = 20, 150, 8
	for i := range tenants {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			sid := fmt.Sprintf("tenant-%02d", i)
			if _, err := tx.Exec(ctx, setTenant, sid); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO conversations (settings_id, conversation_id, last_seq, last_summary_seq, updated_at)
				SELECT $1, 'conv-' || n, $2::bigint, $2::bigint - 2, now() - n * interval '1 second' FROM generate_series(1, $3::int) AS n`,
				sid, entries, perTenant); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO settings_documents (settings_id, kind, schema_version, revision, data)
				SELECT $1, 'kind-' || n, 1, 1, '{}' FROM generate_series(1, 100) AS n`, sid); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO conversation_entries
				(settings_id, conversation_id, seq, type, created_at, schema_version, data)
				SELECT $1, 'conv-' || n, s, 'response', now(), 1, jsonb_build_object('n', n, 's', s)
				FROM generate_series(1, $2) AS n, generate_series(1, $3) AS s`, sid, perTenant, entries)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO conversation_watchers (settings_id, conversation_id, instance, expires_at)
				SELECT $1, 'conv-' || n, 'instance-' || i, now() + interval '1 minute'
				FROM generate_series(1, $2) AS n, generate_series(1, 2) AS i`, sid, perTenant); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO conversation_events (settings_id, conversation_id, id, body)
				SELECT $1, 'conv-' || n, e, '\x7b7d' FROM generate_series(1, $2) AS n, generate_series(1, 20) AS e`, sid, perTenant)
			return err
		})
		is.NoErr(err)
	}
	// Only this schema's tables: a bare ANALYZE walks every schema, and fails on a table another test drops.
	_, err = pool.Exec(ctx, `ANALYZE conversations, conversation_entries, conversation_events, conversation_watchers, settings_documents`)
	is.NoErr(err)

	const sid, conv = "tenant-07", "conv-42"
	at := time.Now().Add(-time.Minute)
	// A renewal of 10 of the tenant's 150 leases.
	var renewIDs, renewTokens []string
	for n := range 10 {
		renewIDs, renewTokens = append(renewIDs, fmt.Sprintf("conv-%d", n+1)), append(renewTokens, "tok")
	}
	tests := []struct {
		name  string
		query string
		args  []any
		index string // the index the plan must use
	}{
		{"Load", qLoad, []any{sid, conv}, "conversation_entries_pkey"},
		{"LoadAll", qLoadAll, []any{sid, conv}, "conversation_entries_pkey"},
		{"List", qList, []any{sid, 50}, "conversations_recent"},
		{"ListAfter", qListAfter, []any{sid, 50, at, conv}, "conversations_recent"},
		{"Claim", qClaim, []any{sid, conv, "o", "tok", int64(60e6), "instance"}, "conversations_pkey"},
		{"ClaimWatched", qClaim, []any{sid, conv, "o", "tok", int64(60e6), "instance"}, "conversation_watchers_pkey"},
		{"Release", qRelease, []any{sid, conv, "tok", int64(7)}, "conversations_pkey"},
		{"ReadMany", qReadMany, []any{sid, []string{conv, "conv-43"}, []int64{0, 0}, []int32{256, 256}}, "conversation_events_pkey"},
		{"PublishMany", qPublishMany, []any{sid, []string{conv, "conv-43"}, []int64{1, 1}, [][]byte{{}, {}}}, "conversations_pkey"},
		{"Renew", qRenew, []any{sid, conv, "tok", int64(60e6)}, "conversations_pkey"},
		{"AppendOne", qAppendOne, []any{sid, conv, "tok", int64(1), int64(0), int64(0), "response", "", "", "", nil, "{}", false, false, int64(7)}, "conversations_pkey"},
		{"EndRun", qAppendOne, []any{sid, conv, "tok", int64(1), int64(0), int64(0), "response", "", "", "", nil, "{}", true, true, int64(7)}, "conversations_pkey"},
		{"MoveRelease", qMoveRelease, []any{sid, conv, "tok", int64(7), "", "", "user", true}, "conversations_pkey"},
		{"Steer", qSteer, []any{sid, conv, "{}", "channel", "header"}, "conversations_pkey"},
		{"RenewMany", qRenewMany, []any{sid, renewIDs, renewTokens, int64(60e6)}, "Index Scan"}, // either index of the tenant's rows, by the table's size
		{"LoadClaimed", qLoadClaimed, []any{sid, conv, "tok"}, "conversation_entries_pkey"},
		{"GetSettings", qGetSettings, []any{sid, "kind-7"}, "settings_documents_pkey"},
		{"DeleteConversation", qDeleteConversation, []any{sid, conv}, "conversations_pkey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			plan := explain(ctx, t, pool, sid, tt.query, tt.args...)
			if !strings.Contains(plan, tt.index) {
				t.Errorf("plan does not use %s:\n%s", tt.index, plan)
			}
			is.True(!strings.Contains(plan, "Seq Scan")) // no sequential scan
			if testing.Verbose() {
				t.Log(plan)
			}
		})
	}
}

// explain returns the plan of query as the store runs it: in a transaction
// that names the tenant.
func explain(ctx context.Context, t *testing.T, pool interface {
	Begin(context.Context) (pgx.Tx, error)
}, settingsID, query string, args ...any) string {
	t.Helper()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, setTenant, settingsID); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
