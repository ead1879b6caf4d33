package memory

import (
	"context"
	"errors"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

var _ storage.RunStore = (*Store)(nil)

// RenewRuns implements [storage.RunStore], under one lock.
func (s *Store) RenewRuns(ctx context.Context, cs []storage.Claim, ttl time.Duration) ([]storage.Renewal, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storeutil.CheckTTL(ttl); err != nil {
		return nil, err
	}
	out := make([]storage.Renewal, len(cs))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	for i, c := range cs {
		out[i].Claim = c
		if err := storeutil.CheckClaim(c); err != nil {
			out[i].Err = err
			continue
		}
		conv, err := s.liveLease(c, now)
		if err != nil {
			out[i].Err = err
			continue
		}
		conv.lease.ExpiresAt = now.Add(ttl)
		out[i].Claim = conv.lease
	}
	return out, nil
}

// BeginRun implements [storage.RunStore]: the claim, the load and the reads one after the other, or, without a
// conversation, the reservation and the reads under one lock.
func (s *Store) BeginRun(ctx context.Context, b storage.RunBegin) (storage.RunBegun, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.RunBegun{}, err
	}
	if err := storeutil.CheckRunBegin(b); err != nil {
		return storage.RunBegun{}, err
	}
	if b.ConversationID == "" {
		return s.reserveRead(b)
	}
	c, err := s.Claim(ctx, b.SettingsID, b.ConversationID, b.Owner, b.TTL)
	if err != nil {
		return storage.RunBegun{}, err
	}
	out := storage.RunBegun{Claim: c}
	ctx = context.WithoutCancel(ctx) // the claim is taken: read what goes with it
	out.Entries, err = s.load(ctx, b.SettingsID, b.ConversationID, true)
	if errors.Is(err, storage.ErrNotFound) {
		err = nil
	}
	if err != nil {
		return out, err
	}
	for _, k := range b.Kinds {
		doc, err := s.GetSettings(ctx, b.SettingsID, k)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue
		case err != nil:
			return out, err
		}
		if out.Settings == nil {
			out.Settings = map[string]storage.Document{}
		}
		out.Settings[k] = doc
	}
	return out, nil
}

// EndRun implements [storage.RunStore]: the entries, the release and the settlements under one lock.
func (s *Store) EndRun(ctx context.Context, e storage.RunEnd) ([]storage.Entry, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storeutil.CheckRunEnd(e); err != nil {
		return nil, err
	}
	c, ends, entries := e.Claim, e.Settle, e.Entries
	if c.Token == "" { // a run without a conversation: it only settles
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, end := range ends {
			if err := s.reserveLocked(end); err != nil {
				return nil, err
			}
		}
		return []storage.Entry{}, nil
	}
	if len(entries) == 0 {
		return []storage.Entry{}, s.Release(ctx, c)
	}
	out, err := s.prepareAppend(ctx, c, entries)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if out, err = s.appendLocked(c, out); err != nil {
		return nil, err
	}
	for _, e := range ends {
		if err := s.reserveLocked(e); err != nil { // an end settles and forgets: it reads no limit and cannot fail
			return nil, err
		}
	}
	conv := s.conversations[watch.Key{SettingsID: c.SettingsID, ConversationID: c.ConversationID}]
	// As Release does: the steering input the run did not take in goes into the conversation, after the run's
	// last entries, for the next run to read.
	s.moveSteering(conv, s.clock(), storage.Entry{})
	conv.lease = storage.Claim{EventHead: max(conv.lease.EventHead, c.EventHead)}
	return out, nil
}
