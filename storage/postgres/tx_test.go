package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// TestTenantTx: the transaction's tenant is exactly the settings id given, however it is quoted, so an id made to
// end the literal early names no other tenant; the transaction sees only its tenant's rows, on the standard and
// the old string syntax alike; it commits when fn returns nil and rolls back otherwise.
func TestTenantTx(t *testing.T) {
	pool, _ := newPool(t)
	s := openStore(t, pool, nil)
	ctx := t.Context()
	plantRows(t, pool)
	// The old string syntax, where a backslash escapes a quote in any literal, set for the session, as a server's
	// configuration would.
	cfg := pool.Config()
	cfg.ConnConfig.RuntimeParams["standard_conforming_strings"] = "off"
	old, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(old.Close)
	stores := map[string]*postgres.Store{"on": s, "off": openStore(t, old, nil)}
	for _, scs := range []string{"on", "off"} {
		s := stores[scs]
		for _, id := range []string{"a", `a'`, `a\`, `a\'`, `x', true); SELECT set_config('typeshift.settings_id', 'b`,
			`x\', true); SELECT set_config('typeshift.settings_id', 'b', true); --`, "ünïcødé 'quoted' \\ \\\\"} {
			t.Run(scs+"/"+id, func(t *testing.T) {
				is := is.New(t)
				var setting string
				var others int
				err := s.TenantTx(ctx, id, func(tx pgx.Tx) error {
					if err := tx.QueryRow(ctx, `SELECT current_setting('typeshift.settings_id')`).Scan(&setting); err != nil {
						return err
					}
					return tx.QueryRow(ctx, `SELECT count(*) FROM conversations WHERE settings_id = 'b'`).Scan(&others)
				})
				is.NoErr(err)
				is.Equal(setting, id)
				is.Equal(others, 0)
			})
		}
	}
	is := is.New(t)
	is.True(errors.Is(s.TenantTx(ctx, "", func(pgx.Tx) error { return nil }), storage.ErrInvalid))
	is.True(errors.Is(s.TenantTx(ctx, "a\x00b", func(pgx.Tx) error { return nil }), storage.ErrInvalid))

	// Rolled back with fn's error, committed without.
	failed := errors.New("no")
	err = s.TenantTx(ctx, "a", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO conversations (settings_id, conversation_id) VALUES ('a', 'gone')`)
		return errors.Join(err, failed)
	})
	is.True(errors.Is(err, failed))
	is.NoErr(s.TenantTx(ctx, "a", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO conversations (settings_id, conversation_id) VALUES ('a', 'kept')`)
		return err
	}))
	var n int
	is.NoErr(s.TenantTx(ctx, "a", func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM conversations WHERE conversation_id IN ('gone', 'kept')`).Scan(&n)
	}))
	is.Equal(n, 1)
}

// TestSteerTx: steering stored in a transaction reaches a live run's TakeSteering once, and a conversation no run
// holds as its next entry; nothing is stored when the transaction rolls back; a missing conversation (or another
// tenant's) is ErrNotFound.
func TestSteerTx(t *testing.T) {
	is := is.New(t)
	pool, _ := newPool(t)
	s := openStore(t, pool, nil)
	ctx := t.Context()
	c, err := s.Claim(ctx, "a", "c", "owner", time.Minute)
	is.NoErr(err)
	steer := func(settingsID, conv, text string, commit bool) error {
		rollback := errors.New("rolled back")
		err := s.TenantTx(ctx, settingsID, func(tx pgx.Tx) error {
			if err := s.SteerTx(ctx, tx, settingsID, conv, []byte(`"`+text+`"`)); err != nil {
				return err
			}
			if !commit {
				return rollback
			}
			return nil
		})
		if errors.Is(err, rollback) {
			return nil
		}
		return err
	}
	is.NoErr(steer("a", "c", "live", true))
	is.NoErr(steer("a", "c", "rolled back", false))
	taken, err := s.TakeSteering(ctx, c, storage.Entry{})
	is.NoErr(err)
	is.Equal(len(taken), 1)
	is.Equal(string(taken[0].Data), `"live"`)
	is.NoErr(s.Release(ctx, c))

	is.NoErr(steer("a", "c", "ended", true))
	is.NoErr(steer("a", "c", "rolled back", false))
	entries, err := s.Load(ctx, "a", "c")
	is.NoErr(err)
	is.Equal(len(entries), 2)
	is.Equal(entries[1].Type, storage.EntrySteering)
	is.Equal(string(entries[1].Data), `"ended"`)
	is.Equal(entries[1].Seq, int64(2))

	is.True(errors.Is(steer("a", "missing", "x", true), storage.ErrNotFound))
	is.True(errors.Is(steer("b", "c", "x", true), storage.ErrNotFound)) // a's conversation, as b
}
