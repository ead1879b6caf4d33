package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
)

// The events a process publishes go to the database together: every Publish call of the store, whatever its
// conversation or tenant, joins the next batch of the store's publisher, which writes a batch in one transaction
// with one notification (or a few, when the conversations' names do not fit in one payload), at most one batch
// per Options.PublishInterval, on a connection of its own. Postgres commits transactions that notify one at a
// time, cluster-wide (the notify queue's lock is held through the commit's WAL flush), so what bounds the
// watched streams one database carries is notifying commits a second: with a transaction per conversation and
// coalescing window, 300 watched streams asked 6,000 a second of a database that commits about 3,700; with a
// transaction per store and interval they ask 50 a second of each process, whatever their number.

const (
	// qPublishMany stores one tenant's events of any number of conversations, given as parallel arrays, and
	// raises each conversation's event head to its last event. The tenant is named twice: by the
	// transaction's setting, which the row-level security policies read, and by $1, so that a row of another
	// tenant is neither written nor updated even where a policy would admit it. An id already kept (a run
	// that resumed after a crash, numbering again above the head it read) keeps its first body. The head is
	// raised only on rows no one else holds (SKIP LOCKED): a statement that locks many conversations must not
	// wait for, or deadlock with, a lease renewal that locks many too; a claim reads the head as the greater of
	// the stored one and the last event kept (qClaim, qEventRange), so a head not raised loses nothing.
	qPublishMany = `WITH ev AS (
	INSERT INTO conversation_events (settings_id, conversation_id, id, body)
	SELECT $1, e.conversation_id, e.id, e.body FROM unnest($2::text[], $3::bigint[], $4::bytea[]) AS e(conversation_id, id, body)
	ON CONFLICT DO NOTHING
), h AS (
	SELECT conversation_id, max(id) AS last FROM unnest($2::text[], $3::bigint[]) AS e(conversation_id, id)
	GROUP BY conversation_id
), free AS (
	SELECT c.conversation_id FROM conversations c
	WHERE c.settings_id = $1 AND c.conversation_id IN (SELECT conversation_id FROM h)
	FOR UPDATE SKIP LOCKED
)
UPDATE conversations AS c SET event_head = greatest(c.event_head, h.last)
FROM h JOIN free USING (conversation_id)
WHERE c.settings_id = $1 AND c.conversation_id = h.conversation_id AND c.event_head < h.last`

	qNotify = `SELECT pg_notify($1, $2)`
)

// publishLimit bounds the bytes of event bodies one batch writes; the publications past it wait for the next.
const publishLimit = 8 << 20

// publication is one Publish call waiting for its batch.
type publication struct {
	settingsID, conversationID string
	ids                        []int64
	bodies                     [][]byte
	size                       int
	done                       chan error // receives the batch's outcome, once
}

// publisher gathers the store's Publish calls and writes them in batches from one goroutine.
type publisher struct {
	s    *Store
	conn leaseConn // the connection the batches go on; see leaseConn

	mu      sync.Mutex
	queue   []*publication
	started bool
	closed  bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// publish queues p for the next batch and waits for the batch's outcome or ctx's end. A publication whose
// caller gave up may still be written.
func (q *publisher) publish(ctx context.Context, p *publication) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return q.write(ctx, []*publication{p}, viaPool())
	}
	q.queue = append(q.queue, p)
	if !q.started {
		q.started = true
		q.wake, q.stop, q.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go q.loop()
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loop writes the queue in batches until the store closes, then writes what is left.
func (q *publisher) loop() {
	defer close(q.done)
	interval := q.s.publishInterval
	var last time.Time
	for {
		select {
		case <-q.wake:
		case <-q.stop:
			q.drain()
			return
		}
		// At most one batch per interval: the calls that arrive meanwhile join it.
		if wait := interval - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-q.stop:
				q.drain()
				return
			}
		}
		last = time.Now()
		batch, more := q.take()
		if len(batch) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
			_ = q.write(ctx, batch, &q.conn)
			cancel()
		}
		if more {
			select {
			case q.wake <- struct{}{}:
			default:
			}
		}
	}
}

// take removes the publications of the next batch from the queue; more reports that some are left.
func (q *publisher) take() (batch []*publication, more bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	size, n := 0, 0
	for n < len(q.queue) && (n == 0 || size+q.queue[n].size <= publishLimit) {
		size += q.queue[n].size
		n++
	}
	batch = slices.Clone(q.queue[:n])
	clear(q.queue[:n])
	q.queue = q.queue[n:]
	if len(q.queue) == 0 {
		q.queue = nil
	}
	return batch, len(q.queue) > 0
}

// drain writes what is queued when the store closes, through the pool.
func (q *publisher) drain() {
	for {
		batch, more := q.take()
		if len(batch) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
			_ = q.write(ctx, batch, viaPool())
			cancel()
		}
		if !more {
			return
		}
	}
}

// close stops the publisher after it wrote what was queued; later publications go alone, through the pool.
func (q *publisher) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	started := q.started
	q.mu.Unlock()
	if started {
		close(q.stop)
		<-q.done
	}
	q.conn.close()
}

// write sends the batch on conn in one transaction and tells each publication the outcome. When the batch
// fails, each publication is sent again on its own, so that one publication's failure is its own.
func (q *publisher) write(ctx context.Context, batch []*publication, conn *leaseConn) error {
	err := q.send(ctx, batch, conn)
	if err != nil && len(batch) > 1 {
		for _, p := range batch {
			p.done <- q.send(ctx, []*publication{p}, conn)
		}
		return err
	}
	for _, p := range batch {
		p.done <- err
	}
	return err
}

// send writes the publications in one batch: per tenant the statement that names it, then one statement for
// all its conversations; then the notifications, each naming as many conversations and their last ids as fit in
// a payload.
func (q *publisher) send(ctx context.Context, batch []*publication, conn *leaseConn) error {
	order := make([]int, len(batch))
	for i := range order {
		order[i] = i
	}
	// By tenant, each conversation's publications in the order they came.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(batch[a].settingsID, batch[b].settingsID) })
	b := &pgx.Batch{}
	stmts := 0
	var payloads []string
	payload := []byte{kindEvents}
	for start := 0; start < len(order); {
		sid := batch[order[start]].settingsID
		var convs []string
		var ids []int64
		var bodies [][]byte
		end := start
		for ; end < len(order) && batch[order[end]].settingsID == sid; end++ {
			p := batch[order[end]]
			for i := range p.ids {
				convs, ids, bodies = append(convs, p.conversationID), append(ids, p.ids[i]), append(bodies, p.bodies[i])
			}
			entry := strconv.AppendInt(payloadHeader(kindEvents, sid, p.conversationID)[1:], p.ids[len(p.ids)-1], 10)
			entry = append(entry, ',')
			if len(payload) > 1 && len(payload)+len(entry) > maxPayload {
				payloads = append(payloads, string(payload))
				payload = []byte{kindEvents}
			}
			payload = append(payload, entry...)
		}
		b.Queue(setTenant, sid)
		b.Queue(qPublishMany, sid, convs, ids, bodies)
		stmts += 2
		start = end
	}
	payloads = append(payloads, string(payload))
	for _, p := range payloads {
		b.Queue(qNotify, q.s.channel, p)
		stmts++
	}
	return wrap("publish", conn.send(ctx, q.s, b, func(br pgx.BatchResults) error {
		for range stmts {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	}))
}

// parseEvents reads the body of a kindEvents payload: the conversations it names, each with its last event's
// id, which a receiver does not need and does not check.
func parseEvents(body string) ([]eventsEntry, error) {
	var out []eventsEntry
	for body != "" {
		key, rest, err := parseKey(body)
		if err != nil {
			return out, err
		}
		i := 0
		for i < len(rest) && rest[i] != ',' {
			i++
		}
		if i == len(rest) {
			return out, errors.New("malformed payload: an entry without its end")
		}
		out = append(out, eventsEntry{key.SettingsID, key.ConversationID, rest[:i]})
		body = rest[i+1:]
	}
	return out, nil
}

// eventsEntry is a conversation a kindEvents payload names, with what follows its ids.
type eventsEntry struct{ settingsID, conversationID, last string }

// viaPool returns a connection holder that sends through the pool, for a store that closed.
func viaPool() *leaseConn { return &leaseConn{closed: true} }

func errDecreasing(id, prev int64) error {
	return fmt.Errorf("postgres: publish: event ids must increase (%d after %d): %w", id, prev, storage.ErrInvalid)
}

// newPublication checks the events of a Publish call and makes its publication.
func newPublication(settingsID, conversationID string, events []storage.Event) (*publication, error) {
	p := &publication{settingsID: settingsID, conversationID: conversationID,
		ids: make([]int64, len(events)), bodies: make([][]byte, len(events)), done: make(chan error, 1)}
	for i, e := range events {
		if i > 0 && e.ID <= p.ids[i-1] {
			return nil, errDecreasing(e.ID, p.ids[i-1])
		}
		p.ids[i], p.bodies[i] = e.ID, e.Data
		if p.bodies[i] == nil {
			p.bodies[i] = []byte{}
		}
		p.size += len(e.Data) + 16
	}
	return p, nil
}

// The watchers of a process read what they are signalled of together too: each watcher's read after its last
// event joins the store's next read, one batch for every conversation and tenant waiting (per tenant the statement
// that names it, then one query for all its conversations), sent as soon as the one before it returned. A batch
// of publications signals every watcher of its conversations at once; read one by one, 300 watched streams made
// their watchers' process send 6,000 reads a second.

// qReadMany reads one tenant's events of several conversations, each after its own position and up to its own
// limit; ord is the position of the request in the arrays, from 1.
const qReadMany = `SELECT k.ord, e.id, e.body
FROM unnest($2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY AS k(conversation_id, after, lim, ord)
CROSS JOIN LATERAL (
	SELECT id, body FROM conversation_events
	WHERE settings_id = $1 AND conversation_id = k.conversation_id AND id > k.after
	ORDER BY id LIMIT k.lim) AS e`

// readLimit bounds the requests one read batch serves; the others wait for the next.
const readLimit = 1000

// readRequest is one watcher's read waiting for its batch.
type readRequest struct {
	settingsID, conversationID string
	after                      int64
	limit                      int
	out                        []storage.Event
	err                        error
	done                       chan struct{}
}

// reader gathers the store's watchers' reads and sends them in batches, one batch at a time.
type reader struct {
	s     *Store
	mu    sync.Mutex
	queue []*readRequest
	busy  bool // a goroutine sends the queue
}

// read returns the events of the conversation after after, at most limit, in order of id.
func (r *reader) read(ctx context.Context, settingsID, conversationID string, after int64, limit int) ([]storage.Event, error) {
	req := &readRequest{settingsID: settingsID, conversationID: conversationID, after: after, limit: limit, done: make(chan struct{})}
	r.mu.Lock()
	r.queue = append(r.queue, req)
	start := !r.busy
	r.busy = true
	r.mu.Unlock()
	if start {
		go r.loop()
	}
	select {
	case <-req.done:
		return req.out, req.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// loop sends the queue, batch after batch, until it is empty.
func (r *reader) loop() {
	for {
		r.mu.Lock()
		n := min(len(r.queue), readLimit)
		if n == 0 {
			r.busy, r.queue = false, nil
			r.mu.Unlock()
			return
		}
		batch := slices.Clone(r.queue[:n])
		clear(r.queue[:n])
		r.queue = r.queue[n:]
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		err := r.send(ctx, batch)
		cancel()
		for _, req := range batch {
			if err != nil {
				req.out, req.err = nil, err
			}
			close(req.done)
		}
	}
}

// send reads the batch's events into its requests.
func (r *reader) send(ctx context.Context, batch []*readRequest) error {
	slices.SortStableFunc(batch, func(a, b *readRequest) int { return cmp.Compare(a.settingsID, b.settingsID) })
	b := &pgx.Batch{}
	var groups [][]*readRequest
	for start := 0; start < len(batch); {
		sid := batch[start].settingsID
		end := start
		for end < len(batch) && batch[end].settingsID == sid {
			end++
		}
		g := batch[start:end]
		convs, afters, limits := make([]string, len(g)), make([]int64, len(g)), make([]int32, len(g))
		for i, req := range g {
			convs[i], afters[i], limits[i] = req.conversationID, req.after, int32(min(req.limit, 1<<20))
		}
		b.Queue(setTenant, sid)
		b.Queue(qReadMany, sid, convs, afters, limits)
		groups = append(groups, g)
		start = end
	}
	br := r.s.pool.SendBatch(ctx, b)
	err := func() error {
		for _, g := range groups {
			if _, err := br.Exec(); err != nil {
				return err
			}
			rows, err := br.Query()
			if err != nil {
				return err
			}
			for rows.Next() {
				var ord int64
				var e storage.Event
				if err := rows.Scan(&ord, &e.ID, &e.Data); err != nil {
					rows.Close()
					return err
				}
				if ord < 1 || ord > int64(len(g)) {
					rows.Close()
					return fmt.Errorf("unexpected request %d", ord)
				}
				g[ord-1].out = append(g[ord-1].out, e)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return wrap("read events", err)
}
