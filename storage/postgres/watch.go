package postgres

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
)

// maxPayload is the largest NOTIFY payload sent inline. Postgres refuses
// payloads of 8000 bytes or more; the margin is for nothing but safety.
const maxPayload = 7900

// A notification's payload is a kind letter, the two ids each prefixed with
// its length, and the body:
//
//	t 5:acme 4:c-42 {"delta":"hi"}     the event itself, valid UTF-8 without NUL
//	b 5:acme 4:c-42 AAEC/w==           the event in base64
//	p 5:acme 4:c-42 1234               the id of a conversation_events row
//
// (without the spaces). Lengths make any id safe to carry.
const (
	kindText    = 't'
	kindBase64  = 'b'
	kindPointer = 'p'
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

// parsePayload reads a payload made by Publish.
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
	qNotify = `SELECT pg_notify($1, $2)`

	// qPublishPointer stores a large event and notifies its id; the
	// notification goes out when the transaction commits, after the row is
	// visible.
	qPublishPointer = `WITH ev AS (
	INSERT INTO conversation_events (settings_id, conversation_id, body) VALUES ($1, $2, $3) RETURNING id
)
SELECT pg_notify($4, $5 || ev.id::text) FROM ev`

	qPruneEvents = `DELETE FROM conversation_events
WHERE settings_id = $1 AND created_at < now() - $2::bigint * interval '1 microsecond'`

	qEventBody = `SELECT body FROM conversation_events WHERE settings_id = $1 AND id = $2`
)

// Publish implements [storage.ConversationStore]. Small events travel in the
// notification; larger ones are written to conversation_events, which
// Publish prunes of rows older than [Options.EventRetention].
func (s *Store) Publish(ctx context.Context, settingsID, conversationID string, event []byte) error {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	if utf8.Valid(event) && bytes.IndexByte(event, 0) < 0 {
		p := payloadHeader(kindText, settingsID, conversationID)
		if len(p)+len(event) <= maxPayload {
			_, err := s.pool.Exec(ctx, qNotify, s.channel, string(append(p, event...)))
			return wrap("publish", err)
		}
	} else if p := payloadHeader(kindBase64, settingsID, conversationID); len(p)+base64.StdEncoding.EncodedLen(len(event)) <= maxPayload {
		p = base64.StdEncoding.AppendEncode(p, event)
		_, err := s.pool.Exec(ctx, qNotify, s.channel, string(p))
		return wrap("publish", err)
	}
	head := payloadHeader(kindPointer, settingsID, conversationID)
	if len(head)+20 > maxPayload {
		return fmt.Errorf("postgres: publish: ids too long for a notification: %w", storage.ErrInvalid)
	}
	b := tenantBatch(settingsID)
	b.Queue(qPruneEvents, settingsID, s.eventRetention.Microseconds())
	b.Queue(qPublishPointer, settingsID, conversationID, event, s.channel, string(head))
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		_, err := br.Exec()
		return err
	})
	return wrap("publish", err)
}

// Watch implements [storage.ConversationStore]. The first watcher of a Store
// opens a connection that LISTENs; it is closed when the last watcher ends.
// Events published while that connection is being re-established after a
// failure are lost to the watchers.
func (s *Store) Watch(ctx context.Context, settingsID, conversationID string) (<-chan []byte, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("postgres: watch: store closed")
	}
	if s.listen == nil {
		l, err := s.startListener(ctx)
		if err != nil {
			return nil, wrap("watch", err)
		}
		s.listen = l
	}
	s.watchers++
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	return s.hub.Subscribe(ctx, key, func(int) { s.watcherDone() }), nil
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
		s.deliver(ctx, n.Payload)
	}
}

// deliver decodes one notification and publishes it to the hub, reading the
// body of a large event from its row. Payloads it cannot read are dropped:
// they come from another program on the channel or a newer version.
func (s *Store) deliver(ctx context.Context, payload string) {
	kind, key, body, err := parsePayload(payload)
	if err != nil || !s.hub.Has(key) {
		return
	}
	switch kind {
	case kindText:
		s.hub.Publish(key, []byte(body))
	case kindBase64:
		ev, err := base64.StdEncoding.DecodeString(body)
		if err == nil {
			s.hub.Publish(key, ev)
		}
	case kindPointer:
		id, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return
		}
		var ev []byte
		b := tenantBatch(key.SettingsID)
		b.Queue(qEventBody, key.SettingsID, id)
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err = s.send(qctx, b, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&ev) })
		if err == nil {
			s.hub.Publish(key, ev)
		}
	}
}
