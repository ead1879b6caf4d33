package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// TenantTx runs fn in one transaction on the store's pool in which row-level
// security admits settingsID's rows and no others, and commits it when fn
// returns nil (rolls it back otherwise). It is the hook for code beside the
// store that must write its own rows and the store's atomically: a job queue
// that stores a job in the transaction of the conversation write that starts
// it, and records a job's end in the transaction that steers its report
// ([Store.SteerTx]). fn must not commit or roll back tx itself.
func (s *Store) TenantTx(ctx context.Context, settingsID string, fn func(tx pgx.Tx) error) error {
	if err := storage.CheckIDs(settingsID); err != nil {
		return err
	}
	// The tenant is named in the statement that begins the transaction, one
	// round trip for both (pgx sends a statement without arguments in the
	// simple protocol, which runs several).
	begin := pgx.TxOptions{BeginQuery: "BEGIN; SELECT set_config('typeshift.settings_id', " + quoteLiteral(settingsID) + ", true)"}
	return pgx.BeginTxFunc(ctx, s.pool, begin, fn)
}

// quoteLiteral quotes s, text without NUL (storage.CheckIDs), as an escape
// string literal: backslashes and quotes are escaped whatever the server's
// standard_conforming_strings, so no s ends the literal early.
func quoteLiteral(s string) string {
	return "E'" + literalEscapes.Replace(s) + "'"
}

var literalEscapes = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

const (
	// qSteerLock locks the conversation's row, so that a claim, a release
	// and a TakeSteering of the conversation wait for tx (or tx for them),
	// and says whether a live lease holds it.
	qSteerLock = `SELECT lease_token IS NOT NULL AND lease_expires_at > now(), coalesce(lease_token, '') FROM conversations
WHERE settings_id = $1 AND conversation_id = $2 FOR UPDATE`

	// qSteerQueue queues steering input behind what an expired lease left
	// queued, for qMoveSteering to store both in order.
	qSteerQueue = `INSERT INTO conversation_steering (settings_id, conversation_id, data) VALUES ($1, $2, $3::jsonb)`

	// qSteerStore stores steering input as the conversation's next entry,
	// for a conversation no run holds, as a claim followed by a release
	// would.
	qSteerStore = `WITH bumped AS (
	UPDATE conversations
	SET last_seq = last_seq + 1,
	    created_at = CASE WHEN last_seq = 0 THEN now() ELSE created_at END,
	    updated_at = now()
	WHERE settings_id = $1 AND conversation_id = $2
	RETURNING last_seq
)
INSERT INTO conversation_entries
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
SELECT $1, $2, last_seq, 'steering', '', '', 'user', now(), ` + entryVersion + `, $3::jsonb FROM bumped`
)

// SteerTx stores data, steering input as for [Store.Steer], for conversation
// conversationID of settingsID in tx, a transaction of [Store.TenantTx] for
// that tenant, whether or not a run holds the conversation. While a run holds
// it the input is queued as Steer queues it and the run, notified when tx
// commits, takes it in before its next model call (or its release stores it);
// when no run holds it the input is stored as the conversation's next entry,
// where its next run reads it. Either way it is in the conversation exactly
// once if and only if tx commits. SteerTx fails with storage.ErrNotFound when
// the conversation does not exist in the tenant.
func (s *Store) SteerTx(ctx context.Context, tx pgx.Tx, settingsID, conversationID string, data []byte) error {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	e, err := storeutil.PrepareEntry(storage.Entry{Type: storage.EntrySteering, Data: data})
	if err != nil {
		return err
	}
	var live bool
	var token string
	err = tx.QueryRow(ctx, qSteerLock, settingsID, conversationID).Scan(&live, &token)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	if err != nil {
		return wrap("steer", err)
	}
	if live {
		head, err := s.notifyHeader(kindSteering, settingsID, conversationID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, qSteer, settingsID, conversationID, string(e.Data), s.channel, head)
		if err != nil {
			return wrap("steer", err)
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		// The lease expired between the two statements: no run holds the conversation any more.
	}
	if token != "" {
		// An expired lease may have left input queued (a crashed run): the
		// report goes behind it, and both are stored as the next Claim would.
		if _, err := tx.Exec(ctx, qSteerQueue, settingsID, conversationID, string(e.Data)); err != nil {
			return wrap("steer", err)
		}
		if _, err := tx.Exec(ctx, qMoveSteering, settingsID, conversationID, token, true, "", "", "user",
			storeutil.Touches(storage.EntrySteering)); err != nil {
			return wrap("steer", err)
		}
		return nil
	}
	if _, err := tx.Exec(ctx, qSteerStore, settingsID, conversationID, string(e.Data)); err != nil {
		return wrap("steer", err)
	}
	return nil
}

// StoreSteering implements [storage.RunStore]: [Store.SteerTx] in a
// transaction of its own.
func (s *Store) StoreSteering(ctx context.Context, settingsID, conversationID string, data []byte) error {
	return s.TenantTx(ctx, settingsID, func(tx pgx.Tx) error {
		return s.SteerTx(ctx, tx, settingsID, conversationID, data)
	})
}
