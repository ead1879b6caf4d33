package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// Steer implements [storage.ConversationStore]: the input is queued only
// while a live claim holds the conversation, under the same lock.
func (s *Store) Steer(ctx context.Context, settingsID, conversationID string, data []byte) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	e, err := storeutil.PrepareEntry(storage.Entry{Type: storage.EntrySteering, Data: data})
	if err != nil {
		return err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	s.mu.Lock()
	conv := s.conversations[key]
	if conv == nil || conv.lease.Token == "" || !s.clock().Before(conv.lease.ExpiresAt) {
		s.mu.Unlock()
		return fmt.Errorf("memory: conversation %q: %w", conversationID, storage.ErrNotRunning)
	}
	conv.steering = append(conv.steering, cloneBytes(e.Data))
	s.mu.Unlock()
	s.steerHub.Signal(key)
	return nil
}

// StoreSteering implements [storage.RunStore]: under the same lock as
// Claim, the input is queued for the live claim, or stored as the
// conversation's next entry when there is none.
func (s *Store) StoreSteering(ctx context.Context, settingsID, conversationID string, data []byte) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return err
	}
	e, err := storeutil.PrepareEntry(storage.Entry{Type: storage.EntrySteering, Data: data})
	if err != nil {
		return err
	}
	key := watch.Key{SettingsID: settingsID, ConversationID: conversationID}
	s.mu.Lock()
	conv := s.conversations[key]
	if conv == nil {
		s.mu.Unlock()
		return fmt.Errorf("memory: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	now := s.clock()
	conv.steering = append(conv.steering, cloneBytes(e.Data))
	live := conv.lease.Token != "" && now.Before(conv.lease.ExpiresAt)
	if !live {
		// Behind what a crashed run left queued, as its next Claim would store it.
		s.moveSteering(conv, now, storage.Entry{})
	}
	s.mu.Unlock()
	if live {
		s.steerHub.Signal(key)
	}
	return nil
}

// TakeSteering implements [storage.ConversationStore].
func (s *Store) TakeSteering(ctx context.Context, c storage.Claim, stamp storage.Entry) ([]storage.Entry, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storeutil.CheckClaim(c); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	conv, err := s.liveLease(c, now)
	if err != nil {
		return nil, err
	}
	taken := s.moveSteering(conv, now, stamp)
	for i := range taken {
		taken[i].Data = cloneBytes(taken[i].Data)
	}
	return taken, nil
}

// moveSteering appends conv's queued steering input to its entries, stamped
// with stamp's run, agent and author ("user" when empty), and returns the
// entries appended; s.mu is held.
func (s *Store) moveSteering(conv *conversation, now time.Time, stamp storage.Entry) []storage.Entry {
	if len(conv.steering) == 0 {
		return nil
	}
	if stamp.Author == "" {
		stamp.Author = "user"
	}
	if len(conv.entries) == 0 {
		conv.createdAt = now
	}
	if storeutil.Touches(storage.EntrySteering) {
		conv.updatedAt = now
	}
	out := make([]storage.Entry, len(conv.steering))
	for i, data := range conv.steering {
		e := storage.Entry{Seq: int64(len(conv.entries)) + 1, Type: storage.EntrySteering, RunID: stamp.RunID,
			Agent: stamp.Agent, Author: stamp.Author, Time: now, Data: data}
		conv.entries = append(conv.entries, stored{Entry: e, schemaVersion: storage.EntrySchemaVersion})
		out[i] = e
	}
	conv.steering = nil
	return out
}

// WatchSteering implements [storage.ConversationStore].
func (s *Store) WatchSteering(ctx context.Context, settingsID, conversationID string) (<-chan struct{}, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return nil, err
	}
	return s.steerHub.Subscribe(ctx, watch.Key{SettingsID: settingsID, ConversationID: conversationID}, nil), nil
}

// EventRange implements [storage.ConversationStore].
func (s *Store) EventRange(ctx context.Context, settingsID, conversationID string) (storage.EventRange, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.EventRange{}, err
	}
	if err := storage.CheckIDs(settingsID, conversationID); err != nil {
		return storage.EventRange{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	conv := s.conversations[watch.Key{SettingsID: settingsID, ConversationID: conversationID}]
	if conv == nil {
		return storage.EventRange{}, fmt.Errorf("memory: conversation %q: %w", conversationID, storage.ErrNotFound)
	}
	return storage.EventRange{Base: conv.eventBase, Head: conv.lease.EventHead}, nil
}
