package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/cursor"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// entryVersion is [storage.EntrySchemaVersion] as the statements write it; TestEntryFormatVersions checks that
// they agree.
const entryVersion = "2"

const (
	// qClaim takes the lease when it is free or expired. ON CONFLICT DO
	// UPDATE locks the row and evaluates WHERE against the committed lease,
	// so of concurrent claims exactly one returns a row.
	qClaim = `INSERT INTO conversations AS c (settings_id, conversation_id, lease_owner, lease_token, lease_expires_at)
VALUES ($1, $2, $3, $4, now() + $5::bigint * interval '1 microsecond')
ON CONFLICT (settings_id, conversation_id) DO UPDATE
SET lease_owner = excluded.lease_owner, lease_token = excluded.lease_token, lease_expires_at = excluded.lease_expires_at
WHERE c.lease_expires_at IS NULL OR c.lease_expires_at <= now()
RETURNING lease_expires_at, ` + eventHead + `, ` + watchedBy + `, steering_queued > 0`

	qRenew = `UPDATE conversations SET lease_expires_at = now() + $4::bigint * interval '1 microsecond'
WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3 AND lease_expires_at > now()
RETURNING lease_owner, lease_expires_at`

	// qRelease gives the lease up and keeps the last event id of the run
	// ($4) for the next.
	qRelease = `UPDATE conversations SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL,
	event_head = greatest(event_head, $4::bigint)
WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3`

	// qDropUnwritten removes the row of a conversation that was claimed and
	// released without an entry, which would otherwise linger.
	qDropUnwritten = `DELETE FROM conversations
WHERE settings_id = $1 AND conversation_id = $2 AND last_seq = 0 AND lease_token IS NULL`

	// leaseCTE checks the live lease and reserves $4 sequence numbers in one
	// row update; $5 is the position in the batch of its last summary (0:
	// none), $6 the sequence number the caller expects first (0: any), $13
	// whether the entries move the conversation's updated_at (see
	// storage.EntryType.Touches). A step inside a run leaves every indexed
	// column alone, so its update is HOT.
	leaseCTE = `WITH lease AS (
	UPDATE conversations
	SET last_seq = last_seq + $4::bigint,
	    last_summary_seq = CASE WHEN $5::bigint > 0 THEN last_seq + $5::bigint ELSE last_summary_seq END,
	    created_at = CASE WHEN last_seq = 0 THEN now() ELSE created_at END,
	    updated_at = CASE WHEN $13::boolean OR last_seq = 0 THEN now() ELSE updated_at END` + leaseRelease + `
	WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3 AND lease_expires_at > now()
	  AND ($6::bigint = 0 OR last_seq + 1 = $6::bigint)
	RETURNING last_seq - $4::bigint AS base
)
`
	// leaseRelease gives the lease up in the same update when $14 is true
	// (EndRun) and no steering input is queued, keeping the run's
	// last event id $15 (as qRelease does). Queued input is stored before
	// the release, by qMoveRelease after this statement. The lease columns
	// are not indexed, so the update stays HOT when nothing else moves.
	leaseRelease = `,
	    lease_owner = CASE WHEN $14::boolean AND steering_queued = 0 THEN NULL ELSE lease_owner END,
	    lease_token = CASE WHEN $14::boolean AND steering_queued = 0 THEN NULL ELSE lease_token END,
	    lease_expires_at = CASE WHEN $14::boolean AND steering_queued = 0 THEN NULL ELSE lease_expires_at END,
	    event_head = CASE WHEN $14::boolean AND steering_queued = 0 THEN greatest(event_head, $15::bigint) ELSE event_head END`
	// qAppendOne is the common case, one entry, with scalar parameters.
	qAppendOne = leaseCTE + `INSERT INTO conversation_entries
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
SELECT $1, $2, lease.base + 1, $7, $8, $9, $10, coalesce($11::timestamptz, now()), ` + entryVersion + `, $12::jsonb
FROM lease
RETURNING seq, created_at`

	// qAppendMany inserts several entries from parallel arrays.
	qAppendMany = leaseCTE + `INSERT INTO conversation_entries
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
SELECT $1, $2, lease.base + e.ord, e.type, e.run_id, e.agent, e.author, coalesce(e.at, now()), ` + entryVersion + `, e.data::jsonb
FROM lease, unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::text[])
	WITH ORDINALITY AS e(type, run_id, agent, author, at, data, ord)
RETURNING seq, created_at`

	// qWhyNot tells a lost claim from a wrong sequence number after an
	// Append that stored nothing.
	qWhyNot = `SELECT lease_token = $3 AND lease_expires_at > now(), last_seq FROM conversations
WHERE settings_id = $1 AND conversation_id = $2`

	qLeaseLive = `SELECT EXISTS (SELECT 1 FROM conversations
WHERE settings_id = $1 AND conversation_id = $2 AND lease_token = $3 AND lease_expires_at > now())`

	entryColumns = `SELECT seq, type, run_id, agent, author, created_at, schema_version, data FROM conversation_entries `

	qLoad = entryColumns + `WHERE settings_id = $1 AND conversation_id = $2
  AND seq >= (SELECT last_summary_seq FROM conversations WHERE settings_id = $1 AND conversation_id = $2)
ORDER BY seq`

	qLoadAll = entryColumns + `WHERE settings_id = $1 AND conversation_id = $2 ORDER BY seq`

	listColumns = `SELECT conversation_id, created_at, updated_at, last_seq FROM conversations `

	qList = listColumns + `WHERE settings_id = $1 AND last_seq > 0
ORDER BY updated_at DESC, conversation_id DESC LIMIT $2`

	qListAfter = listColumns + `WHERE settings_id = $1 AND last_seq > 0 AND (updated_at, conversation_id) < ($3, $4)
ORDER BY updated_at DESC, conversation_id DESC LIMIT $2`

	qDeleteEvents = `DELETE FROM conversation_events WHERE settings_id = $1 AND conversation_id = $2`

	qDeleteEntries = `DELETE FROM conversation_entries WHERE settings_id = $1 AND conversation_id = $2`

	qDeleteConversation = `DELETE FROM conversations WHERE settings_id = $1 AND conversation_id = $2`
)

func claimLost(c storage.Claim) error {
	return fmt.Errorf("postgres: conversation %q: %w", c.ConversationID, storage.ErrClaimLost)
}

// Claim implements [storage.ConversationStore].
func (s *Store) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckLeaseOwner(owner); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckTTL(ttl); err != nil {
		return storage.Claim{}, err
	}
	c := storage.Claim{SettingsID: settingsID, ConversationID: conversationID, Owner: owner, Token: newToken()}
	b := claimBatch(settingsID)
	b.Queue(qClaim, settingsID, conversationID, owner, c.Token, ttl.Microseconds(), s.instance)
	queued := false
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		return br.QueryRow().Scan(&c.ExpiresAt, &c.EventHead, &c.Watched, &queued)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Claim{}, fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrConversationBusy)
	}
	if err != nil {
		return storage.Claim{}, wrap("claim", err)
	}
	if queued {
		// Input queued under an expired claim goes into the conversation now, for this run to load.
		if _, err := s.takeQueued(ctx, c); err != nil {
			return storage.Claim{}, err
		}
	}
	c.ExpiresAt = c.ExpiresAt.UTC()
	return c, nil
}

// Renew implements [storage.ConversationStore].
func (s *Store) Renew(ctx context.Context, c storage.Claim, ttl time.Duration) (storage.Claim, error) {
	if err := storeutil.CheckClaim(c); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckTTL(ttl); err != nil {
		return storage.Claim{}, err
	}
	b := tenantBatch(c.SettingsID)
	b.Queue(qRenew, c.SettingsID, c.ConversationID, c.Token, ttl.Microseconds())
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		var owner *string
		if err := br.QueryRow().Scan(&owner, &c.ExpiresAt); err != nil {
			return err
		}
		if owner != nil {
			c.Owner = *owner
		}
		return nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Claim{}, claimLost(c)
	}
	if err != nil {
		return storage.Claim{}, wrap("renew", err)
	}
	c.ExpiresAt = c.ExpiresAt.UTC()
	return c, nil
}

// Release implements [storage.ConversationStore]. Releasing an expired claim
// that nobody took over succeeds: the lease was still c's.
func (s *Store) Release(ctx context.Context, c storage.Claim) error {
	if err := storeutil.CheckClaim(c); err != nil {
		return err
	}
	b := tenantBatch(c.SettingsID)
	// The queued steering input goes into the conversation first, so none is
	// left behind without a run to take it (see qLockLease).
	b.Queue(qLockLease, c.SettingsID, c.ConversationID, c.Token, true)
	queueMove(b, c, true, storage.Entry{})
	b.Queue(qRelease, c.SettingsID, c.ConversationID, c.Token, c.EventHead)
	b.Queue(qDropUnwritten, c.SettingsID, c.ConversationID)
	var n int64
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if _, err := readMoved(br); err != nil {
			return err
		}
		tag, err := br.Exec()
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return wrap("release", err)
	}
	if n == 0 {
		return claimLost(c)
	}
	return nil
}

// Append implements [storage.ConversationStore]. It is one statement in one
// round trip: the lease check, the numbering and the insert succeed or fail
// together.
func (s *Store) Append(ctx context.Context, c storage.Claim, entries ...storage.Entry) ([]storage.Entry, error) {
	return s.appendEntries(ctx, c, false, nil, entries)
}

// appendEntries serves Append and EndRun, which gives the lease up in
// the statement that stores the entries.
func (s *Store) appendEntries(ctx context.Context, c storage.Claim, release bool, ends []storage.BudgetReservation, entries []storage.Entry) ([]storage.Entry, error) {
	if err := storeutil.CheckClaim(c); err != nil {
		return nil, err
	}
	out := make([]storage.Entry, len(entries))
	var lastSummary int64
	var firstSeq int64 // the first sequence number the caller's entries imply; 0: any
	touches := false   // whether the conversation's updated_at moves
	for i, e := range entries {
		e, err := storeutil.PrepareEntry(e)
		if err != nil {
			return nil, err
		}
		if e.Seq != 0 {
			implied := e.Seq - int64(i)
			if implied < 1 || (firstSeq != 0 && implied != firstSeq) {
				return nil, fmt.Errorf("postgres: conversation %q: entry sequence %d at position %d does not fit: %w",
					c.ConversationID, e.Seq, i+1, storage.ErrConflict)
			}
			firstSeq = implied
		}
		if e.Type == storage.EntrySummary {
			lastSummary = int64(i + 1)
		}
		touches = touches || storeutil.Touches(e.Type)
		out[i] = e
	}
	if len(out) == 0 {
		return out, s.checkLease(ctx, c)
	}

	b := tenantBatch(c.SettingsID)
	n := int64(len(out))
	// With release, the append gives the lease up itself unless steering input is queued; qMoveRelease, after it,
	// then stores that input and releases.
	if len(out) == 1 {
		e := out[0]
		b.Queue(qAppendOne, c.SettingsID, c.ConversationID, c.Token, n, lastSummary, firstSeq,
			string(e.Type), e.RunID, e.Agent, e.Author, optionalTime(e.Time), string(e.Data), touches, release, c.EventHead)
	} else {
		types, runs, agents, authors, datas := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		times := make([]pgtype.Timestamptz, n)
		for i, e := range out {
			types[i], runs[i], agents[i], authors[i], datas[i] = string(e.Type), e.RunID, e.Agent, e.Author, string(e.Data)
			times[i] = optionalTime(e.Time)
		}
		b.Queue(qAppendMany, c.SettingsID, c.ConversationID, c.Token, n, lastSummary, firstSeq,
			types, runs, agents, authors, times, datas, touches, release, c.EventHead)
	}
	for _, e := range ends {
		queueBudgetEnd(b, c, e)
	}
	if release {
		b.Queue(qMoveRelease, c.SettingsID, c.ConversationID, c.Token, c.EventHead, "", "", "user", storeutil.Touches(storage.EntrySteering))
	}
	got := 0
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		var err error
		if got, err = readAppended(br, out); err != nil {
			return err
		}
		for range ends {
			if err := br.QueryRow().Scan(new(int64)); err != nil {
				return err
			}
		}
		if release {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap("append", err)
	}
	if got == 0 {
		return nil, s.whyNot(ctx, c, firstSeq)
	}
	return out, nil
}

// readAppended places the sequence numbers and times an append statement returned in out, and returns how
// many rows it returned: none when the lease was not live.
func readAppended(br pgx.BatchResults, out []storage.Entry) (int, error) {
	rows, err := br.Query()
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var seqs [16]int64
	var stamps [16]time.Time
	seqList, timeList := seqs[:0], stamps[:0]
	for rows.Next() {
		var seq int64
		var at time.Time
		if err := rows.Scan(&seq, &at); err != nil {
			return 0, err
		}
		seqList, timeList = append(seqList, seq), append(timeList, at)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(seqList) == 0 {
		return 0, nil
	}
	// RETURNING need not keep the SELECT's order; the numbers are consecutive, so place each by its own.
	first := seqList[0]
	for _, q := range seqList {
		first = min(first, q)
	}
	for i, q := range seqList {
		k := q - first
		if k < 0 || k >= int64(len(out)) {
			return 0, fmt.Errorf("unexpected sequence number %d", q)
		}
		out[k].Seq = q
		out[k].Time = timeList[i].UTC()
	}
	return len(seqList), nil
}

// optionalTime passes a zero time as NULL, so the database's clock fills it.
func optionalTime(t time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: t, Valid: !t.IsZero()}
}

// whyNot explains an Append that stored nothing: the lease is gone, or it
// holds and the caller's sequence number was wrong.
func (s *Store) whyNot(ctx context.Context, c storage.Claim, wantSeq int64) error {
	b := tenantBatch(c.SettingsID)
	b.Queue(qWhyNot, c.SettingsID, c.ConversationID, c.Token)
	var live *bool
	var last int64
	err := s.send(ctx, b, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&live, &last) })
	switch {
	case errors.Is(err, pgx.ErrNoRows) || (err == nil && (live == nil || !*live)):
		return claimLost(c)
	case err != nil:
		return wrap("append", err)
	}
	return fmt.Errorf("postgres: conversation %q: entry sequence %d, next is %d: %w",
		c.ConversationID, wantSeq, last+1, storage.ErrConflict)
}

// checkLease reports ErrClaimLost unless c is the live lease.
func (s *Store) checkLease(ctx context.Context, c storage.Claim) error {
	b := tenantBatch(c.SettingsID)
	b.Queue(qLeaseLive, c.SettingsID, c.ConversationID, c.Token)
	var live bool
	if err := s.send(ctx, b, func(br pgx.BatchResults) error { return br.QueryRow().Scan(&live) }); err != nil {
		return wrap("append", err)
	}
	if !live {
		return claimLost(c)
	}
	return nil
}

// Load implements [storage.ConversationStore].
func (s *Store) Load(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	return s.load(ctx, qLoad, settingsID, conversationID)
}

// LoadAll implements [storage.ConversationStore].
func (s *Store) LoadAll(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	return s.load(ctx, qLoadAll, settingsID, conversationID)
}

// load runs qLoad or qLoadAll and checks each entry read.
func (s *Store) load(ctx context.Context, query, settingsID, conversationID string) ([]storage.Entry, error) {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	b := tenantBatch(settingsID)
	b.Queue(query, settingsID, conversationID)
	var out []storage.Entry
	var corrupt error
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		var err error
		out, corrupt, err = readEntries(br, conversationID)
		return err
	})
	if err != nil {
		return nil, wrap("load", err)
	}
	if corrupt != nil {
		return nil, corrupt
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	return out, nil
}

// readEntries reads the rows of a load query and checks each entry; corrupt
// is the first entry it cannot read.
func readEntries(br pgx.BatchResults, conversationID string) (out []storage.Entry, corrupt error, err error) {
	rows, err := br.Query()
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		e       storage.Entry
		typ     string
		version int16
		data    []byte // pgx copies JSON into a []byte; a RawMessage would be unmarshalled
	)
	dest := []any{&e.Seq, &typ, &e.RunID, &e.Agent, &e.Author, &e.Time, &version, &data}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		e.Type = storage.EntryType(typ)
		e.Data = data
		e.Time = e.Time.UTC()
		if corrupt == nil {
			corrupt = storeutil.CheckStoredEntry(conversationID, e, int(version), false)
		}
		out = append(out, e)
	}
	return out, corrupt, rows.Err()
}

// newToken returns a fresh lease token.
func newToken() string { return cursor.Token() }

// List implements [storage.ConversationStore].
func (s *Store) List(ctx context.Context, settingsID string, opts storage.ListOptions) ([]storage.ConversationInfo, error) {
	if err := storage.CheckIDs(settingsID); err != nil {
		return nil, err
	}
	b := tenantBatch(settingsID)
	if opts.After == "" {
		b.Queue(qList, settingsID, storeutil.PageLimit(opts))
	} else {
		at, id, err := cursor.Decode(opts.After)
		if err != nil {
			return nil, err
		}
		b.Queue(qListAfter, settingsID, storeutil.PageLimit(opts), at, id)
	}
	var out []storage.ConversationInfo
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var info storage.ConversationInfo
			if err := rows.Scan(&info.ConversationID, &info.CreatedAt, &info.UpdatedAt, &info.LastSeq); err != nil {
				return err
			}
			info.CreatedAt, info.UpdatedAt = info.CreatedAt.UTC(), info.UpdatedAt.UTC()
			info.Cursor = cursor.Encode(info.UpdatedAt, info.ConversationID)
			out = append(out, info)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("list", err)
	}
	return out, nil
}

// Delete implements [storage.ConversationStore].
func (s *Store) Delete(ctx context.Context, settingsID, conversationID string) error {
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	b := tenantBatch(settingsID)
	b.Queue(qDeleteEvents, settingsID, conversationID)
	b.Queue(qDeleteSteering, settingsID, conversationID)
	b.Queue(qDeleteEntries, settingsID, conversationID)
	b.Queue(qDeleteConversation, settingsID, conversationID)
	var n int64
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		for range 3 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		tag, err := br.Exec()
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return wrap("delete", err)
	}
	if n == 0 {
		return fmt.Errorf("postgres: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	return nil
}
