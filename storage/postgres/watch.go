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
//	E 5:acme 4:c-42 17, 5:acme 4:c-43 9,   events up to 17 of c-42 and up to 9 of c-43 were published
//	s 5:acme 4:c-42 1234                   steering input was queued
//	w 5:acme 4:c-42 k3j…                   the store instance k3j… started watching
//
// (without the spaces). An E payload names every conversation of a batch of
// the store's publisher that fits in it (relay.go); a batch sends as many as
// it needs. Lengths make any id safe to carry. A receiver reads the rows
// themselves under the tenant the watcher named, so a notification from
// anyone else on the channel finds nothing it may read.
const (
	kindEvent    = 'e' // events of one conversation, as versions before batches sent them: still read
	kindEvents   = 'E'
	kindSteering = 's'
	kindWatcher  = 'w' // a process started watching; the body is its instance id
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
	key, body, err = parseKey(p[1:])
	if err != nil {
		return 0, key, "", err
	}
	return p[0], key, body, nil
}

// parseKey reads the two ids of a payload, each prefixed with its length, and returns what follows them.
func parseKey(p string) (key watch.Key, rest string, err error) {
	rest = p
	var ids [2]string
	for i := range ids {
		n, after, ok := strings.Cut(rest, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(after) {
			return key, "", fmt.Errorf("malformed payload %.40q", p)
		}
		ids[i], rest = after[:size], after[size:]
	}
	return watch.Key{SettingsID: ids[0], ConversationID: ids[1]}, rest, nil
}

const (
	qEventRange = `SELECT event_base, ` + eventHead + ` FROM conversations WHERE settings_id = $1 AND conversation_id = $2`

	// eventHead is a conversation's event head in a statement that reads its row ($1 and $2 name it): the
	// stored head, or the last event kept if that is above it (a publication that could not raise the head,
	// of a run that then stopped without its release).
	eventHead = `greatest(event_head, (SELECT max(e.id) FROM conversation_events e
	WHERE e.settings_id = $1 AND e.conversation_id = $2))`

	// qWatching records that this store's instance watches the
	// conversation, until the row expires, and tells the runs of other
	// instances.
	qWatching = `WITH w AS (
	INSERT INTO conversation_watchers AS w (settings_id, conversation_id, instance, expires_at)
	VALUES ($1, $2, $3, now() + $4::bigint * interval '1 microsecond')
	ON CONFLICT (settings_id, conversation_id, instance) DO UPDATE SET expires_at = excluded.expires_at
)
SELECT pg_notify($5, $6)`

	qNotWatching = `DELETE FROM conversation_watchers WHERE settings_id = $1 AND conversation_id = $2 AND instance = $3`

	// watchedBy is the claim's test for a watcher in another process; $1
	// and $2 name the conversation, $6 is the claiming store's instance.
	watchedBy = `EXISTS (SELECT 1 FROM conversation_watchers w
	WHERE w.settings_id = $1 AND w.conversation_id = $2 AND w.instance <> $6 AND w.expires_at > now())`
)

// watcherTTL is how long a watcher's row lives unless renewed; it is renewed
// every third of it while the instance watches.
const watcherTTL = 30 * time.Second

// Publish implements [storage.EventRelay]. The events join the next batch of
// the store's publisher (relay.go), which writes the events of every
// conversation published meanwhile, of any tenant, in one transaction with
// one notification, at most once per [Options.PublishInterval]; Publish
// returns once its batch is committed. Expired events are removed apart, in
// bounded batches (see prune.go), never by the writers.
func (s *Store) Publish(ctx context.Context, settingsID, conversationID string, events []storage.Event) error {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	if _, err := s.notifyHeader(kindEvents, settingsID, conversationID); err != nil {
		return err
	}
	p, err := newPublication(settingsID, conversationID, events)
	if err != nil {
		return err
	}
	s.pruner.touch(settingsID)
	return s.publisher.publish(ctx, p)
}

// EventRange implements [storage.ConversationStore].
func (s *Store) EventRange(ctx context.Context, settingsID, conversationID string) (storage.EventRange, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return storage.EventRange{}, err
	}
	var rng storage.EventRange
	b := tenantBatch(settingsID)
	b.Queue(qEventRange, settingsID, conversationID)
	err := s.send(ctx, b, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&rng.Base, &rng.Head) })
	if errors.Is(err, pgx.ErrNoRows) {
		return rng, fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	if err != nil {
		return rng, wrap("event range", err)
	}
	return rng, nil
}

// Watch implements [storage.EventRelay]. The store's instance is recorded as
// a watcher of the conversation while any Watch of it lasts (one row per
// instance, renewed, and one notification when it starts), so that a run in
// another process publishes. Each notification that names the conversation
// makes the watcher read the events after the last it returned, from the
// table, under its tenant; after the listener reconnects every watcher reads
// once, so events published meanwhile are not lost while they are kept.
func (s *Store) Watch(ctx context.Context, settingsID, conversationID string, after int64) (<-chan storage.Event, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	wHead, err := s.notifyHeader(kindWatcher, settingsID, conversationID)
	if err != nil {
		return nil, err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	ctx, cancel := context.WithCancel(ctx)
	signals, err := s.subscribe(ctx, &s.eventHub, key)
	if err != nil {
		cancel()
		return nil, err
	}
	if err := s.watching.add(ctx, key, func(ctx context.Context, on bool) error {
		b := tenantBatch(settingsID)
		if on {
			b.Queue(qWatching, settingsID, conversationID, s.instance, watcherTTL.Microseconds(), s.channel, wHead+s.instance)
		} else {
			b.Queue(qNotWatching, settingsID, conversationID, s.instance)
		}
		_, err := s.sendExec(ctx, b)
		return err
	}); err != nil {
		cancel()
		return nil, wrap("watch", err)
	}
	s.pruner.touch(settingsID)
	return watch.Follow(ctx, signals, after, cancel, watch.Source{
		Head: func(ctx context.Context) (int64, error) {
			rng, err := s.EventRange(ctx, settingsID, conversationID)
			if errors.Is(err, storage.ErrNotFound) {
				return 0, nil
			}
			return rng.Head, err
		},
		Read: func(ctx context.Context, after int64, limit int) ([]storage.Event, error) {
			ctx, cancel := context.WithTimeout(ctx, readTimeout)
			defer cancel()
			return s.reader.read(ctx, settingsID, conversationID, after, limit)
		},
	})
}

// WatchWatchers implements [storage.EventRelay]: the channel is signalled by
// the notification another instance's Watch sends when it starts watching.
func (s *Store) WatchWatchers(ctx context.Context, settingsID, conversationID string) (<-chan struct{}, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	return s.subscribe(ctx, &s.watcherHub, watch.Key{SettingsID: settingsID, ConversationID: conversationID})
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
// close while it waits; Options.Direct's when set, since LISTEN holds a
// session) and LISTENs on the channel.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	// The name says what the connection is for to whoever reads pg_stat_activity.
	conn, err := s.directConnect(ctx, "typeshift watch")
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
			s.watcherHub.SignalAll()
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
	kind, key, body, err := parsePayload(payload)
	if err != nil {
		return
	}
	switch kind {
	case kindEvent:
		s.eventHub.Signal(key)
	case kindEvents:
		// Every conversation the payload names, up to anything malformed.
		entries, _ := parseEvents(payload[1:])
		for _, e := range entries {
			s.eventHub.Signal(watch.Key{SettingsID: e.settingsID, ConversationID: e.conversationID})
		}
	case kindSteering:
		s.steerHub.Signal(key)
	case kindWatcher:
		if body != s.instance { // this instance's runs feed its own watchers from memory
			s.watcherHub.Signal(key)
		}
	}
}
