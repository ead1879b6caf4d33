package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// TestMigrationCountsQueuedSteering upgrades a schema at version 5 that holds steering input queued under a run's
// lease, of two tenants: migration 0006 counts it on each conversation's row, under the tables' forced row-level
// security, and the next claim after the lease expired moves it into the conversation.
func TestMigrationCountsQueuedSteering(t *testing.T) {
	is := is.New(t)
	pool, _ := pgtest.Pool(t)
	ctx := t.Context()
	all, err := postgres.Migrations()
	is.NoErr(err)
	_, err = pool.Exec(ctx, `CREATE TABLE typeshift_schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now())`)
	is.NoErr(err)
	for _, m := range all {
		if m.Version > 5 {
			break
		}
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO typeshift_schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		is.NoErr(err)
	}
	queued := map[string]int{"tenant-a": 2, "tenant-b": 1}
	for sid, n := range queued {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', $1, true)`, sid); err != nil {
				return err
			}
			// A run's lease that has just expired, with its input stored and steering input queued.
			if _, err := tx.Exec(ctx, `INSERT INTO conversations (settings_id, conversation_id, last_seq, lease_owner, lease_token, lease_expires_at)
VALUES ($1, 'c', 1, 'crashed', 'old', now() - interval '1 second')`, sid); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO conversation_entries (settings_id, conversation_id, seq, type, created_at, schema_version, data)
VALUES ($1, 'c', 1, 'input', now(), 2, '{}')`, sid); err != nil {
				return err
			}
			for i := range n {
				if _, err := tx.Exec(ctx, `INSERT INTO conversation_steering (settings_id, conversation_id, data) VALUES ($1, 'c', $2::jsonb)`, sid, i); err != nil {
					return err
				}
			}
			return nil
		})
		is.NoErr(err)
	}

	applied, err := postgres.Migrate(ctx, pool)
	is.NoErr(err)
	is.True(len(applied) > 0 && applied[0] == 6) // the upgrade starts at 0006

	s := openStore(t, pool, nil)
	// counts reads what the tenant has queued: its rows, and the count on its conversation's row.
	counts := func(sid string) (rows, counted int64) {
		err := s.TenantTx(ctx, sid, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM conversation_steering), steering_queued
FROM conversations WHERE conversation_id = 'c'`).Scan(&rows, &counted)
		})
		is.NoErr(err)
		return rows, counted
	}
	for sid, n := range queued {
		_, counted := counts(sid)
		is.Equal(counted, int64(n)) // each tenant's queued input counted

		got, err := s.BeginRun(ctx, storage.RunBegin{SettingsID: sid, ConversationID: "c", Owner: "successor", TTL: time.Minute})
		is.NoErr(err)
		steering := 0
		for _, e := range got.Entries {
			if e.Type == storage.EntrySteering {
				steering++
			}
		}
		is.Equal(steering, n) // the next claim moved it into the conversation
		is.NoErr(s.Release(ctx, got.Claim))
		rows, counted := counts(sid)
		is.Equal(rows, int64(0))    // nothing left queued
		is.Equal(counted, int64(0)) // and nothing counted
	}
}
