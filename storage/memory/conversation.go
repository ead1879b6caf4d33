package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/cursor"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// Claim implements [storage.ConversationStore].
func (s *Store) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Claim{}, err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckLeaseOwner(owner); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckTTL(ttl); err != nil {
		return storage.Claim{}, err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	c := s.conversations[key]
	if c == nil {
		// The lease exists before the first entry; List and Load ignore a
		// conversation until it has one.
		c = &conversation{lastSummary: -1}
		// Event ids start above the time of the first claim, so a conversation created again numbers its
		// events above the deleted one's.
		c.eventBase = now.UnixMicro()
		c.lease.EventHead = c.eventBase
		s.conversations[key] = c
	}
	if c.lease.Token != "" && now.Before(c.lease.ExpiresAt) {
		return storage.Claim{}, fmt.Errorf("memory: conversation %q held by %q until %v: %w",
			conversationID, c.lease.Owner, c.lease.ExpiresAt, storage.ErrConversationBusy)
	}
	// Input queued under an expired claim goes into the conversation now, for
	// this run to load.
	s.moveSteering(c, now, storage.Entry{})
	c.lease = storage.Claim{
		SettingsID:     settingsID,
		ConversationID: conversationID,
		Owner:          owner,
		Token:          cursor.Token(),
		ExpiresAt:      now.Add(ttl),
		EventHead:      c.lease.EventHead,
	}
	return c.lease, nil
}

// liveLease returns the conversation whose live lease is c; s.mu is held.
func (s *Store) liveLease(c storage.Claim, now time.Time) (*conversation, error) {
	conv := s.conversations[watch.Key{SettingsID: c.SettingsID, ConversationID: c.ConversationID}]
	if conv == nil || conv.lease.Token != c.Token || !now.Before(conv.lease.ExpiresAt) {
		return nil, fmt.Errorf("memory: conversation %q: %w", c.ConversationID, storage.ErrClaimLost)
	}
	return conv, nil
}

// Renew implements [storage.ConversationStore].
func (s *Store) Renew(ctx context.Context, c storage.Claim, ttl time.Duration) (storage.Claim, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckClaim(c); err != nil {
		return storage.Claim{}, err
	}
	if err := storeutil.CheckTTL(ttl); err != nil {
		return storage.Claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	conv, err := s.liveLease(c, now)
	if err != nil {
		return storage.Claim{}, err
	}
	conv.lease.ExpiresAt = now.Add(ttl)
	return conv.lease, nil
}

// Release implements [storage.ConversationStore]. Releasing an expired claim
// that nobody took over succeeds: the lease was still c's.
func (s *Store) Release(ctx context.Context, c storage.Claim) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storeutil.CheckClaim(c); err != nil {
		return err
	}
	key := watch.Key{SettingsID: c.SettingsID, ConversationID: c.ConversationID}
	s.mu.Lock()
	defer s.mu.Unlock()
	conv := s.conversations[key]
	if conv == nil || conv.lease.Token != c.Token {
		return fmt.Errorf("memory: conversation %q: %w", c.ConversationID, storage.ErrClaimLost)
	}
	s.moveSteering(conv, s.clock(), storage.Entry{})
	conv.lease = storage.Claim{EventHead: max(conv.lease.EventHead, c.EventHead)}
	if len(conv.entries) == 0 {
		delete(s.conversations, key)
	}
	return nil
}

// Append implements [storage.ConversationStore].
func (s *Store) Append(ctx context.Context, c storage.Claim, entries ...storage.Entry) ([]storage.Entry, error) {
	out, err := s.prepareAppend(ctx, c, entries)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(c, out)
}

// prepareAppend checks Append's arguments and copies the entries.
func (s *Store) prepareAppend(ctx context.Context, c storage.Claim, entries []storage.Entry) ([]storage.Entry, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storeutil.CheckClaim(c); err != nil {
		return nil, err
	}
	out := make([]storage.Entry, len(entries))
	for i, e := range entries {
		e, err := storeutil.PrepareEntry(e)
		if err != nil {
			return nil, err
		}
		e.Data = cloneBytes(e.Data)
		out[i] = e
	}
	return out, nil
}

// appendLocked stores out, prepared, under the live claim c; s.mu is held.
func (s *Store) appendLocked(c storage.Claim, out []storage.Entry) ([]storage.Entry, error) {
	now := s.clock()
	conv, err := s.liveLease(c, now)
	if err != nil {
		return nil, err
	}
	next := int64(len(conv.entries)) + 1
	for i := range out {
		if out[i].Seq != 0 && out[i].Seq != next+int64(i) {
			return nil, fmt.Errorf("memory: conversation %q: entry sequence %d, next is %d: %w",
				c.ConversationID, out[i].Seq, next+int64(i), storage.ErrConflict)
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	if len(conv.entries) == 0 {
		conv.createdAt, conv.updatedAt = now, now
	}
	for i := range out {
		if storeutil.Touches(out[i].Type) {
			conv.updatedAt = now
		}
		out[i].Seq = next + int64(i)
		if out[i].Time.IsZero() {
			out[i].Time = now
		}
		if out[i].Type == storage.EntrySummary {
			conv.lastSummary = len(conv.entries)
		}
		conv.entries = append(conv.entries, stored{Entry: out[i], schemaVersion: storage.EntrySchemaVersion})
	}
	// Hand back copies: the stored data must not change under the caller.
	res := slices.Clone(out)
	for i := range res {
		res[i].Data = cloneBytes(res[i].Data)
	}
	return res, nil
}

// Load implements [storage.ConversationStore].
func (s *Store) Load(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	return s.load(ctx, settingsID, conversationID, true)
}

// LoadAll implements [storage.ConversationStore].
func (s *Store) LoadAll(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	return s.load(ctx, settingsID, conversationID, false)
}

// load serves Load (from the last summary on) and LoadAll.
func (s *Store) load(ctx context.Context, settingsID, conversationID string, sinceSummary bool) ([]storage.Entry, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	conv := s.conversations[watch.Key{SettingsID: settingsID, ConversationID: conversationID}]
	if conv == nil || len(conv.entries) == 0 {
		return nil, fmt.Errorf("memory: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	from := 0
	if sinceSummary && conv.lastSummary >= 0 {
		from = conv.lastSummary
	}
	out := make([]storage.Entry, 0, len(conv.entries)-from)
	for _, st := range conv.entries[from:] {
		if err := storeutil.CheckStoredEntry(conversationID, st.Entry, st.schemaVersion, true); err != nil {
			return nil, err
		}
		e := st.Entry
		e.Data = cloneBytes(e.Data)
		out = append(out, e)
	}
	return out, nil
}

// List implements [storage.ConversationStore].
func (s *Store) List(ctx context.Context, settingsID string, opts storage.ListOptions) ([]storage.ConversationInfo, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storage.CheckIDs(settingsID); err != nil {
		return nil, err
	}
	var afterTime time.Time
	var afterID string
	if opts.After != "" {
		var err error
		if afterTime, afterID, err = cursor.Decode(opts.After); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	var all []storage.ConversationInfo
	for key, conv := range s.conversations {
		if key.SettingsID != settingsID || len(conv.entries) == 0 {
			continue
		}
		all = append(all, storage.ConversationInfo{
			ConversationID: key.ConversationID,
			CreatedAt:      conv.createdAt,
			UpdatedAt:      conv.updatedAt,
			LastSeq:        int64(len(conv.entries)),
		})
	}
	s.mu.Unlock()
	// Newest first; ties broken by id, descending, as the Postgres index is.
	slices.SortFunc(all, func(a, b storage.ConversationInfo) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		switch {
		case a.ConversationID > b.ConversationID:
			return -1
		case a.ConversationID < b.ConversationID:
			return 1
		}
		return 0
	})
	out := make([]storage.ConversationInfo, 0, min(len(all), storeutil.PageLimit(opts)))
	for _, info := range all {
		if opts.After != "" {
			// Skip up to and including the cursor's position.
			if c := info.UpdatedAt.Compare(afterTime); c > 0 || (c == 0 && info.ConversationID >= afterID) {
				continue
			}
		}
		if len(out) == storeutil.PageLimit(opts) {
			break
		}
		info.Cursor = cursor.Encode(info.UpdatedAt, info.ConversationID)
		out = append(out, info)
	}
	return out, nil
}

// Delete implements [storage.ConversationStore].
func (s *Store) Delete(ctx context.Context, settingsID, conversationID string) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	s.mu.Lock()
	defer s.mu.Unlock()
	conv := s.conversations[key]
	if conv == nil || (len(conv.entries) == 0 && conv.lease.Token == "") {
		return fmt.Errorf("memory: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	delete(s.conversations, key)
	return nil
}
