package memory

import (
	"context"
	"errors"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

var (
	_ storage.LeaseRenewer   = (*Store)(nil)
	_ storage.ClaimLoader    = (*Store)(nil)
	_ storage.AppendReleaser = (*Store)(nil)
	_ storage.BudgetReleaser = (*Store)(nil)
)

// RenewLeases implements [storage.LeaseRenewer], under one lock.
func (s *Store) RenewLeases(ctx context.Context, cs []storage.Claim, ttl time.Duration) ([]storage.Renewal, error) {
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

// ClaimLoad implements [storage.ClaimLoader].
func (s *Store) ClaimLoad(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration, kinds ...string) (storage.Claimed, error) {
	for _, k := range kinds {
		if err := checkDocIDs(settingsID, k); err != nil {
			return storage.Claimed{}, err
		}
	}
	c, err := s.Claim(ctx, settingsID, conversationID, owner, ttl)
	if err != nil {
		return storage.Claimed{}, err
	}
	out := storage.Claimed{Claim: c}
	ctx = context.WithoutCancel(ctx) // the claim is taken: read what goes with it
	out.Entries, err = s.load(ctx, settingsID, conversationID, true)
	if errors.Is(err, storage.ErrNotFound) {
		err = nil
	}
	if err != nil {
		return out, err
	}
	for _, k := range kinds {
		doc, err := s.GetSettings(ctx, settingsID, k)
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

// AppendRelease implements [storage.AppendReleaser], under one lock.
func (s *Store) AppendRelease(ctx context.Context, c storage.Claim, entries ...storage.Entry) ([]storage.Entry, error) {
	return s.AppendReleaseBudget(ctx, c, nil, entries...)
}

// AppendReleaseBudget implements [storage.BudgetReleaser]: the entries, the release and the ends under one lock.
func (s *Store) AppendReleaseBudget(ctx context.Context, c storage.Claim, ends []storage.BudgetReservation, entries ...storage.Entry) ([]storage.Entry, error) {
	if err := storeutil.CheckBudgetEnds(c, ends, len(entries)); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		if err := storeutil.CheckClaim(c); err != nil {
			return nil, err
		}
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
