package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

const (
	// qSteer queues steering input only while the conversation's lease is
	// live, and counts it on the conversation's row (steering_queued). The
	// update holds the row until the input commits, so a release, a
	// TakeSteering or a run's last store that updates or locks the row waits
	// for it and then sees it; one that holds the row first makes Steer wait
	// and check the lease again. The notification, sent at commit, names the
	// row and nothing else.
	qSteer = `WITH live AS (
	UPDATE conversations SET steering_queued = steering_queued + 1
	WHERE settings_id = $1 AND conversation_id = $2 AND lease_token IS NOT NULL AND lease_expires_at > now()
	RETURNING settings_id, conversation_id
), queued AS (
	INSERT INTO conversation_steering (settings_id, conversation_id, data)
	SELECT $1, $2, $3::jsonb FROM live
	RETURNING id
)
SELECT pg_notify($4, $5 || queued.id::text) FROM queued`

	// qLockLease locks the row of the lease $3 ($4: even when it expired),
	// so that every Steer that saw the lease live has committed before the
	// statements after it in the batch take their snapshot.
	qLockLease = `SELECT 1 FROM conversations
WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3 AND ($4::boolean OR lease_expires_at > now())
FOR UPDATE`

	// steeringEntries ends qMoveSteering and qMoveRelease: it stores the
	// rows their CTE moved deleted as steering entries, numbered after
	// lease.base in the order they were queued, stamped with run $5, agent
	// $6 and author $7.
	steeringEntries = `INSERT INTO conversation_entries
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
SELECT $1, $2, lease.base + m.ord, 'steering', $5, $6, $7, now(), ` + entryVersion + `, m.data
FROM lease, (SELECT data, row_number() OVER (ORDER BY id) AS ord FROM moved) m`

	// qMoveSteering moves the queued input of the lease $3 ($4: even when it
	// expired) into conversation_entries, numbered after the last entry, in
	// the order it was queued, stamped with run $5, agent $6 and author $7.
	// Nothing is deleted unless the lease is there to number the entries.
	// It runs with the row locked (qLockLease, a claim, SteerTx's lock), so
	// what it moves is all there is: the count starts again from nothing.
	qMoveSteering = `WITH moved AS (
	DELETE FROM conversation_steering q
	WHERE q.settings_id = $1 AND q.conversation_id = $2
	  AND EXISTS (SELECT 1 FROM conversations
	    WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3 AND ($4::boolean OR lease_expires_at > now()))
	RETURNING q.id, q.data
), n AS (
	SELECT count(*) AS count FROM moved
), lease AS (
	UPDATE conversations
	SET last_seq = last_seq + n.count,
	    steering_queued = 0,
	    created_at = CASE WHEN last_seq = 0 AND n.count > 0 THEN now() ELSE created_at END,
	    updated_at = CASE WHEN n.count > 0 AND ($8::boolean OR last_seq = 0) THEN now() ELSE updated_at END
	FROM n
	WHERE settings_id = $1 AND conversation_id = $2 AND (n.count > 0 OR steering_queued <> 0)
	  AND lease_token = $3 AND ($4::boolean OR lease_expires_at > now())
	RETURNING last_seq - n.count AS base
)
` + steeringEntries + `
RETURNING seq, created_at, data`

	// qMoveRelease ends a run's last store (appendEntries with release),
	// after the append that gave the lease up unless steering input was
	// queued: then it moves that input into conversation_entries, as
	// qMoveSteering does (stamped with run $5, agent $6 and author $7, and
	// $8 for steering.Touches), and gives the lease $3 up, keeping the run's
	// last event id $4 (qRelease). When the append released the lease it matches
	// no row and costs an index probe. The append updated the row, so every
	// Steer it counted has committed before this statement's snapshot, and
	// none can queue more; when the append stored nothing (the lease had
	// expired), a Steer still in flight may commit after that snapshot, so
	// the count drops by what was moved, not to nothing, and the next claim
	// moves the rest.
	qMoveRelease = `WITH moved AS (
	DELETE FROM conversation_steering q
	WHERE q.settings_id = $1 AND q.conversation_id = $2
	  AND EXISTS (SELECT 1 FROM conversations WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3)
	RETURNING q.id, q.data
), n AS (
	SELECT count(*) AS count FROM moved
), lease AS (
	UPDATE conversations
	SET last_seq = last_seq + n.count,
	    steering_queued = greatest(steering_queued - n.count, 0),
	    created_at = CASE WHEN last_seq = 0 AND n.count > 0 THEN now() ELSE created_at END,
	    updated_at = CASE WHEN n.count > 0 AND ($8::boolean OR last_seq = 0) THEN now() ELSE updated_at END,
	    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL,
	    event_head = greatest(event_head, $4::bigint)
	FROM n
	WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3
	RETURNING last_seq - n.count AS base
)
` + steeringEntries

	qDeleteSteering = `DELETE FROM conversation_steering WHERE settings_id = $1 AND conversation_id = $2`
)

// queueMove adds to b the statement that moves c's queued steering input
// into its entries; anyExpiry also moves it for a lease that expired.
func queueMove(b *pgx.Batch, c storage.Claim, anyExpiry bool, stamp storage.Entry) {
	if stamp.Author == "" {
		stamp.Author = "user"
	}
	b.Queue(qMoveSteering, c.SettingsID, c.ConversationID, c.Token, anyExpiry,
		stamp.RunID, stamp.Agent, stamp.Author, storeutil.Touches(storage.EntrySteering))
}

// readMoved reads the entries qMoveSteering stored.
func readMoved(br pgx.BatchResults) ([]storage.Entry, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storage.Entry
	for rows.Next() {
		var e storage.Entry
		var data []byte
		if err := rows.Scan(&e.Seq, &e.Time, &data); err != nil {
			return nil, err
		}
		e.Type, e.Data, e.Time = storage.EntrySteering, data, e.Time.UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// takeQueued moves the steering input queued under an expired claim into the conversation just claimed by c, in
// a transaction after the claim's: the claim read that some was queued, which is rare (a run that ended without
// its release). Should the move fail, the claim is given up, so that the input stays queued for the next claim.
func (s *Store) takeQueued(ctx context.Context, c storage.Claim) ([]storage.Entry, error) {
	moved, err := s.TakeSteering(ctx, c, storage.Entry{})
	if err != nil {
		_ = s.Release(context.WithoutCancel(ctx), c)
		return nil, err
	}
	return moved, nil
}

// Steer implements [storage.ConversationStore].
func (s *Store) Steer(ctx context.Context, settingsID, conversationID string, data []byte) error {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	e, err := storeutil.PrepareEntry(storage.Entry{Type: storage.EntrySteering, Data: data})
	if err != nil {
		return err
	}
	head, err := s.notifyHeader(kindSteering, settingsID, conversationID)
	if err != nil {
		return err
	}
	b := tenantBatch(settingsID)
	b.Queue(qSteer, settingsID, conversationID, string(e.Data), s.channel, head)
	n, err := s.sendExec(ctx, b)
	if err != nil {
		return wrap("steer", err)
	}
	if n == 0 {
		return fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrNotRunning)
	}
	return nil
}

// TakeSteering implements [storage.ConversationStore]. It is one round trip.
func (s *Store) TakeSteering(ctx context.Context, c storage.Claim, stamp storage.Entry) ([]storage.Entry, error) {
	if err := storeutil.CheckClaim(c); err != nil {
		return nil, err
	}
	b := tenantBatch(c.SettingsID)
	b.Queue(qLockLease, c.SettingsID, c.ConversationID, c.Token, false)
	queueMove(b, c, false, stamp)
	var out []storage.Entry
	live := false
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		live = tag.RowsAffected() > 0
		out, err = readMoved(br)
		return err
	})
	if err != nil {
		return nil, wrap("take steering", err)
	}
	if !live {
		return nil, claimLost(c)
	}
	for i := range out {
		out[i].RunID, out[i].Agent, out[i].Author = stamp.RunID, stamp.Agent, stamp.Author
		if out[i].Author == "" {
			out[i].Author = "user"
		}
	}
	return out, nil
}

// WatchSteering implements [storage.ConversationStore]. A signal comes from
// a notification on the store's channel, which anyone who can connect may
// send; it only makes the claim holder look (TakeSteering). After the listener
// reconnects, every watcher is signalled, for what it may have missed.
func (s *Store) WatchSteering(ctx context.Context, settingsID, conversationID string) (<-chan struct{}, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	return s.subscribe(ctx, &s.steerHub, watch.Key{SettingsID: settingsID, ConversationID: conversationID})
}

// subscribe registers a watcher of key on hub, starting the listener for
// the first watcher of any hub. The listener then stays for the store's life:
// runs one after another subscribe and leave in turn, and opening a
// connection for each would cost more than keeping one.
func (s *Store) subscribe(ctx context.Context, hub *watch.Hub, key watch.Key) (<-chan struct{}, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.listening(ctx); err != nil {
		return nil, err
	}
	return hub.Subscribe(ctx, key, nil), nil
}

// listening starts the listener unless it runs.
func (s *Store) listening(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("postgres: watch: store closed")
	}
	if s.listen == nil {
		l, err := s.startListener(ctx)
		if err != nil {
			return wrap("watch", err)
		}
		s.listen = l
	}
	return nil
}

// readTimeout bounds one read a notification causes.
const readTimeout = 10 * time.Second
