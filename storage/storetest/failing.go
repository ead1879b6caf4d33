package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Op names a write of a store, for counting and for choosing which writes
// a [FailingStore] counts.
type Op string

// The writes a FailingStore counts. Reads, Publish and Watch are never
// failed: they lose nothing.
const (
	OpPutSettings    Op = "PutSettings"
	OpDeleteSettings Op = "DeleteSettings"
	OpClaim          Op = "Claim"
	OpRenew          Op = "Renew"
	OpRelease        Op = "Release"
	OpAppend         Op = "Append"
	OpDelete         Op = "Delete"
)

// ErrInjected is wrapped by every failure a FailingStore makes up.
var ErrInjected = errors.New("storetest: injected failure")

// InjectedError is the failure of one write chosen by a FailingStore.
type InjectedError struct {
	Op Op  // the write's operation
	N  int // the write's number, counting from 1
}

// Error says which write failed on purpose.
func (e *InjectedError) Error() string {
	return fmt.Sprintf("storetest: injected failure of write %d (%s)", e.N, e.Op)
}

// Is makes errors.Is(err, ErrInjected) hold.
func (e *InjectedError) Is(target error) bool { return target == ErrInjected }

// FailingStore wraps a store and fails chosen writes without passing them on,
// as a store that went away would. Use [FailAfter] or [FailFrom].
type FailingStore struct {
	storage.Store

	at     int  // the first write to fail, from 1
	sticky bool // fail every write from at on
	ops    []Op // the writes counted; empty: all

	mu     sync.Mutex
	writes int
	failed []InjectedError
}

// FailAfter returns a store that fails the n-th counted write and passes all
// others to s. With ops, only those writes are counted and failed; without,
// every write is.
func FailAfter(s storage.Store, n int, ops ...Op) *FailingStore {
	return &FailingStore{Store: s, at: n, ops: ops}
}

// FailFrom is FailAfter, except that every counted write from the n-th on
// fails, as after a crash of the store.
func FailFrom(s storage.Store, n int, ops ...Op) *FailingStore {
	return &FailingStore{Store: s, at: n, ops: ops, sticky: true}
}

// Writes returns how many counted writes were attempted so far.
func (f *FailingStore) Writes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

// Failed returns the failures injected so far.
func (f *FailingStore) Failed() []InjectedError {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.failed)
}

// fail counts a write of op and returns the injected error when it must fail.
func (f *FailingStore) fail(op Op) error {
	if len(f.ops) > 0 && !slices.Contains(f.ops, op) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if f.writes == f.at || (f.sticky && f.writes > f.at) {
		e := InjectedError{Op: op, N: f.writes}
		f.failed = append(f.failed, e)
		return &e
	}
	return nil
}

// PutSettings implements [storage.SettingsStore].
func (f *FailingStore) PutSettings(ctx context.Context, doc storage.Document, expectRevision int64) (storage.Document, error) {
	if err := f.fail(OpPutSettings); err != nil {
		return storage.Document{}, err
	}
	return f.Store.PutSettings(ctx, doc, expectRevision)
}

// DeleteSettings implements [storage.SettingsStore].
func (f *FailingStore) DeleteSettings(ctx context.Context, settingsID, kind string) error {
	if err := f.fail(OpDeleteSettings); err != nil {
		return err
	}
	return f.Store.DeleteSettings(ctx, settingsID, kind)
}

// Claim implements [storage.ConversationStore].
func (f *FailingStore) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	if err := f.fail(OpClaim); err != nil {
		return storage.Claim{}, err
	}
	return f.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
}

// Renew implements [storage.ConversationStore].
func (f *FailingStore) Renew(ctx context.Context, c storage.Claim, ttl time.Duration) (storage.Claim, error) {
	if err := f.fail(OpRenew); err != nil {
		return storage.Claim{}, err
	}
	return f.Store.Renew(ctx, c, ttl)
}

// Release implements [storage.ConversationStore].
func (f *FailingStore) Release(ctx context.Context, c storage.Claim) error {
	if err := f.fail(OpRelease); err != nil {
		return err
	}
	return f.Store.Release(ctx, c)
}

// Append implements [storage.ConversationStore].
func (f *FailingStore) Append(ctx context.Context, c storage.Claim, entries ...storage.Entry) ([]storage.Entry, error) {
	if err := f.fail(OpAppend); err != nil {
		return nil, err
	}
	return f.Store.Append(ctx, c, entries...)
}

// Delete implements [storage.ConversationStore].
func (f *FailingStore) Delete(ctx context.Context, settingsID, conversationID string) error {
	if err := f.fail(OpDelete); err != nil {
		return err
	}
	return f.Store.Delete(ctx, settingsID, conversationID)
}
