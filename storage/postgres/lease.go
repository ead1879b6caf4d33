package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

var _ storage.RunStore = (*Store)(nil)

// qRenewMany extends the live leases of one tenant's claims, given as
// parallel arrays of conversation ids and tokens. The tenant is named twice:
// by the transaction's setting, which the row-level security policy reads,
// and by $1, so that a claim of another tenant matches no row even where the
// policy would admit it. The ANY drives the primary key, so the update reads
// the claimed rows, not all of the tenant's.
const qRenewMany = `UPDATE conversations AS c SET lease_expires_at = now() + $4::bigint * interval '1 microsecond'
FROM unnest($2::text[], $3::text[]) AS k(conversation_id, token)
WHERE c.settings_id = $1 AND c.conversation_id = ANY($2::text[])
  AND c.conversation_id = k.conversation_id AND c.lease_token = k.token
  AND c.lease_expires_at > now()
RETURNING c.conversation_id, c.lease_token, c.lease_owner, c.lease_expires_at`

// leaseConn is the connection RenewRuns uses, opened beside the pool rather
// than taken from it: a renewal must not queue behind the queries waiting
// for the pool's connections, or a busy pool lets every lease expire. Behind
// a pooler it is opened from Options.Direct, so as not to queue for the
// pooler's server connections either. The
// store's publisher has one of its own too (relay.go).
type leaseConn struct {
	name   string     // the connection's application_name, unless the pool sets one
	direct bool       // opened from Options.Direct when set (the leases'), not through a pooler
	mu     sync.Mutex // one batch at a time; guards conn and closed
	conn   *pgx.Conn
	closed bool
}

// RenewRuns implements [storage.RunStore]: one round trip on a
// connection of its own, one UPDATE per tenant, each after the statement that
// names the tenant for the row-level security policies, all in one
// transaction. After [Store.Close] it goes through the pool.
func (s *Store) RenewRuns(ctx context.Context, cs []storage.Claim, ttl time.Duration) ([]storage.Renewal, error) {
	if err := storeutil.CheckTTL(ttl); err != nil {
		return nil, err
	}
	out := make([]storage.Renewal, len(cs))
	// The claims to send, by tenant; sorted so that concurrent renewals lock
	// rows in the same order.
	idx := make([]int, 0, len(cs))
	for i, c := range cs {
		out[i].Claim = c
		if err := storeutil.CheckClaim(c); err != nil {
			out[i].Err = err
			continue
		}
		out[i].Err = claimLost(c) // until the database says otherwise
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return out, nil
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(cs[a].SettingsID, cs[b].SettingsID), cmp.Compare(cs[a].ConversationID, cs[b].ConversationID))
	})
	b := &pgx.Batch{}
	type key struct{ settingsID, conversationID, token string }
	pos := make(map[key][]int, len(idx)) // a claim given twice is renewed twice
	var tenants []string
	for start := 0; start < len(idx); {
		sid := cs[idx[start]].SettingsID
		end := start
		var ids, tokens []string
		for ; end < len(idx) && cs[idx[end]].SettingsID == sid; end++ {
			c := cs[idx[end]]
			ids, tokens = append(ids, c.ConversationID), append(tokens, c.Token)
			k := key{sid, c.ConversationID, c.Token}
			pos[k] = append(pos[k], idx[end])
		}
		b.Queue(setTenant, sid)
		b.Queue(qRenewMany, sid, ids, tokens, ttl.Microseconds())
		tenants = append(tenants, sid)
		start = end
	}
	read := func(br pgx.BatchResults) error {
		for _, sid := range tenants {
			if _, err := br.Exec(); err != nil {
				return err
			}
			rows, err := br.Query()
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, token string
				var owner *string
				var at time.Time
				if err := rows.Scan(&id, &token, &owner, &at); err != nil {
					rows.Close()
					return err
				}
				for _, i := range pos[key{sid, id, token}] {
					c := cs[i]
					if owner != nil {
						c.Owner = *owner
					}
					c.ExpiresAt = at.UTC()
					out[i] = storage.Renewal{Claim: c}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.leases.send(ctx, s, b, read); err != nil {
		return nil, wrap("renew leases", err)
	}
	return out, nil
}

// send runs b on the lease connection, opening it when there is none, and
// closes the connection after a failure so that the next call starts afresh.
// pgx runs a batch in one implicit transaction.
func (l *leaseConn) send(ctx context.Context, s *Store, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		br := s.pool.SendBatch(ctx, b)
		err := read(br)
		return errors.Join(err, br.Close())
	}
	if l.conn == nil {
		connect := s.poolConnect // the publisher's: see relay.go
		if l.direct {
			connect = s.directConnect
		}
		conn, err := connect(ctx, l.name)
		if err != nil {
			return err
		}
		l.conn = conn
	}
	br := l.conn.SendBatch(ctx, b)
	err := read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = l.conn.Close(context.WithoutCancel(ctx))
		l.conn = nil
	}
	return err
}

// close closes the lease connection; later renewals use the pool.
func (l *leaseConn) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.conn != nil {
		_ = l.conn.Close(context.Background())
		l.conn = nil
	}
}

// BeginRun implements [storage.RunStore] in one round trip. With a conversation, the claim, the load and the
// settings are one batch, one transaction, and the reads find nothing when the claim failed; without one, the
// reservation and the reads are (reserveRead).
func (s *Store) BeginRun(ctx context.Context, b storage.RunBegin) (storage.RunBegun, error) {
	if err := storeutil.CheckRunBegin(b); err != nil {
		return storage.RunBegun{}, err
	}
	if b.ConversationID == "" {
		return s.reserveRead(ctx, b)
	}
	settingsID, conversationID, owner, ttl, kinds := b.SettingsID, b.ConversationID, b.Owner, b.TTL, b.Kinds
	c := storage.Claim{SettingsID: settingsID, ConversationID: conversationID, Owner: owner, Token: newToken()}
	bt := claimBatch(settingsID)
	bt.Queue(qClaim, settingsID, conversationID, owner, c.Token, ttl.Microseconds(), s.instance)
	bt.Queue(qLoadClaimed, settingsID, conversationID, c.Token)
	for _, k := range kinds {
		bt.Queue(qGetSettings, settingsID, k)
	}
	var out storage.RunBegun
	var corrupt error
	claimed, queued := false, false
	err := s.send(ctx, bt, func(br pgx.BatchResults) error {
		if err := br.QueryRow().Scan(&c.ExpiresAt, &c.EventHead, &c.Watched, &queued); err != nil {
			return err
		}
		claimed = true
		var err error
		if out.Entries, corrupt, err = readEntries(br, conversationID); err != nil {
			return err
		}
		for _, k := range kinds {
			doc, found, err := readSettings(br, settingsID, k)
			if err != nil {
				if corrupt == nil {
					corrupt = err
				}
				continue
			}
			if found {
				if out.Settings == nil {
					out.Settings = map[string]storage.Document{}
				}
				out.Settings[k] = doc
			}
		}
		return nil
	})
	switch {
	case !claimed && errors.Is(err, pgx.ErrNoRows):
		return storage.RunBegun{}, fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrConversationBusy)
	case err != nil:
		// A batch that failed is a transaction rolled back: the claim was not taken.
		return storage.RunBegun{}, wrap("claim", err)
	}
	c.ExpiresAt = c.ExpiresAt.UTC()
	out.Claim = c
	if queued {
		// As Claim does: input queued under an expired claim goes into the conversation, after what was loaded.
		moved, err := s.takeQueued(ctx, c)
		if err != nil {
			return storage.RunBegun{}, err
		}
		out.Entries = append(out.Entries, moved...)
	}
	if corrupt != nil {
		return out, corrupt
	}
	return out, nil
}

// readSettings reads the result of qGetSettings in a batch, as GetSettings
// does: found is false when the document does not exist; a row that does
// not read as a document is a *storage.CorruptSettingsError.
func readSettings(br pgx.BatchResults, settingsID, kind string) (doc storage.Document, found bool, err error) {
	doc = storage.Document{SettingsID: settingsID, Kind: kind}
	rows, err := br.Query()
	if err != nil {
		return doc, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return doc, false, rows.Err()
	}
	var data []byte // copied as it is; see GetSettings
	if err := rows.Scan(&doc.SchemaVersion, &doc.Revision, &data, &doc.UpdatedAt); err != nil {
		return doc, false, &storage.CorruptSettingsError{SettingsID: settingsID, Kind: kind, Err: err}
	}
	doc.Data = data
	doc.UpdatedAt = doc.UpdatedAt.UTC()
	if err := storeutil.CheckStoredDocument(doc, false); err != nil {
		return doc, false, err
	}
	return doc, true, nil
}

// qLoadClaimed is qLoad for the batch of BeginRun: it reads only under the
// lease just taken, so a claim that failed loads nothing.
const qLoadClaimed = entryColumns + `WHERE settings_id = $1 AND conversation_id = $2
  AND seq >= (SELECT last_summary_seq FROM conversations WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3)
ORDER BY seq`

// EndRun implements [storage.RunStore] in one statement: the entries, each settlement's call of
// typeshift_budget_reserve after them, done only when they were stored, and the release, so a lease is given up
// only with its last entries stored. A run without a conversation settles in one round trip of its own.
func (s *Store) EndRun(ctx context.Context, e storage.RunEnd) ([]storage.Entry, error) {
	if err := storeutil.CheckRunEnd(e); err != nil {
		return nil, err
	}
	switch {
	case e.Claim.Token == "": // a run without a conversation: it only settles
		var errs []error
		for _, end := range e.Settle {
			errs = append(errs, s.ReserveBudget(ctx, end))
		}
		return []storage.Entry{}, errors.Join(errs...)
	case len(e.Entries) == 0:
		return []storage.Entry{}, s.Release(ctx, e.Claim)
	}
	return s.appendEntries(ctx, e.Claim, true, e.Settle, e.Entries)
}
