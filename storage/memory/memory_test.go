package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

// corruptible lets the conformance suite break entries of a memory store.
type corruptible struct{ *Store }

func (c corruptible) Corrupt(_ context.Context, settingsID, conversationID string, kind storetest.Corruption) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	conv := c.conversations[watch.Key{SettingsID: settingsID, ConversationID: conversationID}]
	if conv == nil {
		return storage.ErrNotFound
	}
	e := stored{Entry: storage.Entry{Seq: int64(len(conv.entries)) + 1, Type: storage.EntryResponse, Data: json.RawMessage(`{}`)}, schemaVersion: storage.EntrySchemaVersion}
	switch kind {
	case storetest.CorruptData:
		e.Data = json.RawMessage(`{"half":`)
	case storetest.CorruptType:
		e.Type = "from_the_future"
	case storetest.CorruptFutureVersion:
		e.schemaVersion = storage.EntrySchemaVersion + 1
	default:
		return fmt.Errorf("corruption %d: %w", kind, errors.ErrUnsupported)
	}
	conv.entries = append(conv.entries, e)
	return nil
}

func (c corruptible) CorruptSettings(_ context.Context, settingsID, kind string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := docKey{settingsID, kind}
	doc, ok := c.settings[key]
	if !ok {
		return storage.ErrNotFound
	}
	doc.Revision = 0
	c.settings[key] = doc
	return nil
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return corruptible{New()} })
}

// TestConformanceBasic runs the suite through the store's basic methods: runs go the way storeutil.Runs builds.
func TestConformanceBasic(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return storetest.Basic(New()) })
}

func TestCheck(t *testing.T) {
	is := is.New(t)
	errs := storetest.Check(t.Context(), New())
	is.Equal(len(errs), 0) // Check finds nothing wrong with the memory store
}

// TestLeaseClock moves a fake clock past a lease instead of sleeping.
func TestLeaseClock(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := NewWithOptions(&Options{Now: func() time.Time { return now }})
	ctx := t.Context()

	c, err := s.Claim(ctx, "t", "c", "a", time.Minute)
	is.NoErr(err)
	is.Equal(c.ExpiresAt, now.Add(time.Minute))
	now = now.Add(59 * time.Second)
	_, err = s.Claim(ctx, "t", "c", "b", time.Minute)
	is.True(errors.Is(err, storage.ErrConversationBusy))
	now = now.Add(time.Second) // the lease ends at exactly its expiry
	c2, err := s.Claim(ctx, "t", "c", "b", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput})
	is.True(errors.Is(err, storage.ErrClaimLost))
	got, err := s.Append(ctx, c2, storage.Entry{Type: storage.EntryInput})
	is.NoErr(err)
	is.Equal(got[0].Time, now)
	is.Equal(string(got[0].Data), "null")
}

// TestCopies checks that callers cannot change what the store holds.
func TestCopies(t *testing.T) {
	is := is.New(t)
	s := New()
	ctx := t.Context()
	c, err := s.Claim(ctx, "t", "c", "a", time.Minute)
	is.NoErr(err)
	data := []byte(`{"a":1}`)
	got, err := s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: data})
	is.NoErr(err)
	data[2] = 'X'
	got[0].Data[2] = 'Y'
	loaded, err := s.LoadAll(ctx, "t", "c")
	is.NoErr(err)
	is.Equal(string(loaded[0].Data), `{"a":1}`)
	loaded[0].Data[2] = 'Z'
	again, err := s.LoadAll(ctx, "t", "c")
	is.NoErr(err)
	is.Equal(string(again[0].Data), `{"a":1}`)
}
