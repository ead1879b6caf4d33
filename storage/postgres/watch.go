package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
)

// maxPayload is the largest NOTIFY payload. Postgres refuses payloads of
// 8000 bytes or more; the margin is for nothing but safety.
const maxPayload = 7900

// A notification's payload says what happened and to which conversation,
// never what: a kind letter, the two ids each prefixed with its length, and
// the id of the row that was written:
//
//	e 5:acme 4:c-42 17     event 17 of the conversation was published
//	s 5:acme 4:c-42 1234   steering input was queued
//
// (without the spaces). Lengths make any id safe to carry. A receiver reads
// the rows themselves under the tenant the watcher named, so a notification
// from anyone else on the channel finds nothing it may read.
const (
	kindEvent    = 'e'
	kindSteering = 's'
)

func payloadHeader(kind byte, settingsID, conversationID string) []byte {
	h := make([]byte, 0, 16+len(settingsID)+len(conversationID))
	h = append(h, kind)
	h = strconv.AppendInt(h, int64(len(settingsID)), 10)
	h = append(h, ':')
	h = append(h, settingsID...)
	h = strconv.AppendInt(h, int64(len(conversationID)), 10)
	h = append(h, ':')
	return append(h, conversationID...)
}

// notifyHeader returns the payload's header, or ErrInvalid when the ids are
// too long for a notification.
func (s *Store) notifyHeader(kind byte, settingsID, conversationID string) (string, error) {
	h := payloadHeader(kind, settingsID, conversationID)
	if len(h)+20 > maxPayload {
		return "", fmt.Errorf("postgres: ids too long for a notification: %w", storage.ErrInvalid)
	}
	return string(h), nil
}

// parsePayload reads a payload made by payloadHeader and a row id.
func parsePayload(p string) (kind byte, key watch.Key, body string, err error) {
	if p == "" {
		return 0, key, "", errors.New("empty payload")
	}
	kind, rest := p[0], p[1:]
	var ids [2]string
	for i := range ids {
		n, after, ok := strings.Cut(rest, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(after) {
			return 0, key, "", fmt.Errorf("malformed payload %.40q", p)
		}
		ids[i], rest = after[:size], after[size:]
	}
	return kind, watch.Key{SettingsID: ids[0], ConversationID: ids[1]}, rest, nil
}

const (
	// qPublish numbers the event after the conversation's last one and
	// stores it. The upsert's row lock orders the publishers of one
	// conversation, so events commit in the order of their ids. The
	// notification goes out when the transaction commits, after the row is
	// visible.
	qPublish = `WITH head AS (
	INSERT INTO conversation_event_heads AS h (settings_id, conversation_id, last_id) VALUES ($1, $2, 1)
	ON CONFLICT (settings_id, conversation_id) DO UPDATE SET last_id = h.last_id + 1
	RETURNING last_id
), ev AS (
	INSERT INTO conversation_events (settings_id, conversation_id, id, body)
	SELECT $1, $2, last_id, $3 FROM head
	RETURNING id
)
SELECT id, pg_notify($4, $5 || id::text) FROM ev`

	// qPruneOld keeps the conversation's latest $3 events.
	qPruneOld = `DELETE FROM conversation_events
WHERE settings_id = $1 AND conversation_id = $2 AND id <= (
	SELECT last_id FROM conversation_event_heads WHERE settings_id = $1 AND conversation_id = $2) - $3::bigint`

	// qPruneEvents drops the tenant's events older than the retention.
	qPruneEvents = `DELETE FROM conversation_events
WHERE settings_id = $1 AND created_at < now() - $2::bigint * interval '1 microsecond'`

	qEventHead = `SELECT coalesce(max(last_id), 0) FROM conversation_event_heads
WHERE settings_id = $1 AND conversation_id = $2`

	qReadEvents = `SELECT id, body FROM conversation_events
WHERE settings_id = $1 AND conversation_id = $2 AND id > $3
ORDER BY id LIMIT $4`

	qDeleteEventHead = `DELETE FROM conversation_event_heads WHERE settings_id = $1 AND conversation_id = $2`
)

// Publish implements [storage.ConversationStore]. The event is stored, and
// the notification carries its id only. Publish prunes the conversation's
// events beyond [storage.MaxEvents] and the tenant's older than
// [Options.EventRetention], in the same round trip.
func (s *Store) Publish(ctx context.Context, settingsID, conversationID string, event []byte) (int64, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return 0, err
	}
	head, err := s.notifyHeader(kindEvent, settingsID, conversationID)
	if err != nil {
		return 0, err
	}
	if event == nil {
		event = []byte{}
	}
	b := tenantBatch(settingsID)
	b.Queue(qPublish, settingsID, conversationID, event, s.channel, head)
	b.Queue(qPruneOld, settingsID, conversationID, int64(storage.MaxEvents))
	b.Queue(qPruneEvents, settingsID, s.eventRetention.Microseconds())
	var id int64
	err = s.send(ctx, b, func(br pgx.BatchResults) error {
		var ignored string
		if err := br.QueryRow().Scan(&id, &ignored); err != nil {
			return err
		}
		for range 2 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, wrap("publish", err)
	}
	return id, nil
}

// Watch implements [storage.ConversationStore]. The first watcher of a Store
// opens a connection that LISTENs; it is closed when the last watcher ends.
// Each notification that names the conversation makes the watcher read the
// events after the last it returned, from the table, under its tenant; after
// the listener reconnects every watcher reads once, so events published
// meanwhile are not lost while they are kept.
func (s *Store) Watch(ctx context.Context, settingsID, conversationID string, after int64) (<-chan storage.Event, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	ctx, cancel := context.WithCancel(ctx)
	signals, err := s.subscribe(ctx, &s.eventHub, key)
	if err != nil {
		cancel()
		return nil, err
	}
	return watch.Follow(ctx, signals, after, cancel, watch.Source{
		Head: func(ctx context.Context) (int64, error) {
			var head int64
			b := tenantBatch(settingsID)
			b.Queue(qEventHead, settingsID, conversationID)
			err := s.send(ctx, b, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&head) })
			return head, err
		},
		Read: func(ctx context.Context, after int64, limit int) ([]storage.Event, error) {
			ctx, cancel := context.WithTimeout(ctx, readTimeout)
			defer cancel()
			var out []storage.Event
			b := tenantBatch(settingsID)
			b.Queue(qReadEvents, settingsID, conversationID, after, limit)
			err := s.send(ctx, b, func(br pgx.BatchResults) error {
				rows, err := br.Query()
				if err != nil {
					return err
				}
				defer rows.Close()
				for rows.Next() {
					var e storage.Event
					if err := rows.Scan(&e.ID, &e.Data); err != nil {
						return err
					}
					out = append(out, e)
				}
				return rows.Err()
			})
			return out, err
		},
	})
}

// watcherDone stops the listener after the last watcher.
func (s *Store) watcherDone() {
	s.mu.Lock()
	s.watchers--
	var l *listener
	if s.watchers == 0 {
		l, s.listen = s.listen, nil
	}
	s.mu.Unlock()
	if l != nil {
		l.stop()
	}
}

// listener owns the LISTEN connection and its goroutine.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// stop ends the listener and waits until its connection is closed.
func (l *listener) stop() {
	l.cancel()
	<-l.done
}

// startListener connects and LISTENs before it returns, so that a Watch
// sees every event published after it returned.
func (s *Store) startListener(ctx context.Context) (*listener, error) {
	conn, err := s.listenConn(ctx)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{})}
	go s.listenLoop(lctx, conn, l.done)
	return l, nil
}

// listenConn opens a connection of its own (not the pool's, so the pool can
// close while it waits) and LISTENs on the channel.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	cfg := s.pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams["application_name"] == "" {
		// Say what the connection is for to whoever reads pg_stat_activity.
		cfg.RuntimeParams["application_name"] = "typeshift watch"
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return conn, nil
}

// listenLoop hands notifications to the hub until ctx ends, reconnecting
// with a growing pause (up to five seconds) when the connection fails.
func (s *Store) listenLoop(ctx context.Context, conn *pgx.Conn, done chan struct{}) {
	defer close(done)
	defer func() {
		if conn != nil {
			_ = conn.Close(context.Background())
		}
	}()
	pause := 50 * time.Millisecond
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, 5*time.Second)
			c, err := s.listenConn(ctx)
			if err != nil {
				continue
			}
			conn, pause = c, 50*time.Millisecond
			// Notifications sent while no connection listened are lost: every
			// watcher looks once for what it missed.
			s.eventHub.SignalAll()
			s.steerHub.SignalAll()
		}
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			_ = conn.Close(context.Background())
			conn = nil
			continue
		}
		s.deliver(n.Payload)
	}
}

// deliver signals the watchers of the conversation a notification names.
// It trusts nothing in it: a watcher reads what the store holds, under its
// own tenant. Payloads it cannot parse are dropped: they come from another
// program on the channel or a newer version.
func (s *Store) deliver(payload string) {
	kind, key, _, err := parsePayload(payload)
	if err != nil {
		return
	}
	switch kind {
	case kindEvent:
		s.eventHub.Signal(key)
	case kindSteering:
		s.steerHub.Signal(key)
	}
}
