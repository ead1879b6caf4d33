// Package memory is the embedded default store: settings and conversations
// held in the process's memory, lost when it exits. It keeps the same rules as
// the Postgres store (leases with expiry, compare-and-set, tenancy), so code
// tested against it behaves alike in production. Safe for concurrent use.
package memory

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// Store is an in-memory [storage.Store].
type Store struct {
	now func() time.Time

	mu            sync.Mutex
	settings      map[docKey]storage.Document
	conversations map[watch.Key]*conversation
	budget        budgets // tenants' budgets (budget.go)

	steerHub watch.Hub // signals queued steering input
}

var _ storage.Store = (*Store)(nil)

type docKey struct{ SettingsID, Kind string }

// conversation is one conversation's state. Entries are never changed after
// they are appended, so a Load may hand out copies of the slice's elements.
type conversation struct {
	entries     []stored
	lastSummary int // index into entries of the last summary, or -1
	createdAt   time.Time
	updatedAt   time.Time
	lease       storage.Claim     // zero Token: no lease; EventHead is the conversation's, leased or not
	eventBase   int64             // the conversation's events are numbered above it
	steering    []json.RawMessage // queued by Steer, not yet in entries
}

// stored is an entry with the schema version it was written with.
type stored struct {
	storage.Entry
	schemaVersion int
}

// Options changes how a Store behaves; the zero value is the default.
type Options struct {
	// Now returns the current time; nil means time.Now. Tests set it to move
	// leases past their expiry without sleeping.
	Now func() time.Time
}

// New returns an empty store.
func New() *Store { return NewWithOptions(nil) }

// NewWithOptions returns an empty store configured by opts (nil for defaults).
func NewWithOptions(opts *Options) *Store {
	s := &Store{
		now:           time.Now,
		settings:      make(map[docKey]storage.Document),
		conversations: make(map[watch.Key]*conversation),
	}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	return s
}

// clock returns the current time as the store keeps it.
func (s *Store) clock() time.Time { return storeutil.Timestamp(s.now()) }

func ctxErr(ctx context.Context) error { return context.Cause(ctx) }

// cloneBytes copies b so the caller may reuse its buffer.
func cloneBytes(b []byte) []byte { return slices.Clone(b) }
