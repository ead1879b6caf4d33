package storage

import (
	"context"
	"time"
)

// Claim is a run's lease on a conversation: while it is live no other run may
// write to the conversation. Pass it to Append, Renew and Release; a claim
// may be handed to another run (a handoff) by passing the value on.
type Claim struct {
	// SettingsID and ConversationID name the claimed conversation.
	SettingsID     string
	ConversationID string
	// Owner names the holder, for people reading the database or the logs.
	Owner string
	// Token tells this claim from any later claim of the same owner; the
	// store sets it.
	Token string
	// ExpiresAt is when the lease ends unless renewed, by the store's clock.
	ExpiresAt time.Time
}

// ListOptions pages through a tenant's conversations.
type ListOptions struct {
	// Limit is the largest number of conversations returned; 0 means 50, and
	// stores cap it at 1000.
	Limit int
	// After is the Cursor of the last conversation of the previous page; empty
	// starts at the most recently updated.
	After string
}

// DefaultListLimit and MaxListLimit bound a page of List.
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// PageLimit returns the page size List uses for opts.
func (o ListOptions) PageLimit() int {
	switch {
	case o.Limit <= 0:
		return DefaultListLimit
	case o.Limit > MaxListLimit:
		return MaxListLimit
	}
	return o.Limit
}

// ConversationInfo describes one conversation in a List.
type ConversationInfo struct {
	// ConversationID names the conversation within its tenant.
	ConversationID string
	// CreatedAt is when the conversation's first entry was stored.
	CreatedAt time.Time
	// UpdatedAt is when an entry that moves it was last stored (see
	// EntryType.Touches: input, run start and end, not each step); List
	// orders by it.
	UpdatedAt time.Time
	// LastSeq is the sequence number of its last entry.
	LastSeq int64
	// Cursor continues the listing after this conversation (ListOptions.After).
	Cursor string
}

// ConversationStore keeps conversations: append-only lists of entries, a
// lease that lets one run at a time write, and live events of streaming runs.
// A conversation exists once it has an entry.
type ConversationStore interface {
	// Claim takes the conversation's single live-run lease for owner, for ttl.
	// It fails with ErrConversationBusy while another claim is live; an
	// expired lease is taken over.
	Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (Claim, error)

	// Renew extends a live claim to ttl from now, or fails with ErrClaimLost.
	Renew(ctx context.Context, c Claim, ttl time.Duration) (Claim, error)

	// Release gives the lease up. It fails with ErrClaimLost when the lease is
	// no longer c's.
	Release(ctx context.Context, c Claim) error

	// Append stores entries at the end of the conversation, all or none, under
	// a live claim (ErrClaimLost otherwise). It assigns each entry's Seq, and
	// its Time when zero, and returns the entries as stored.
	Append(ctx context.Context, c Claim, entries ...Entry) ([]Entry, error)

	// Load returns the entries from the last EntrySummary on (inclusive), or
	// all of them when there is none. It fails with ErrNotFound for a
	// conversation without entries and with a *CorruptEntryError for an entry
	// it cannot read.
	Load(ctx context.Context, settingsID, conversationID string) ([]Entry, error)

	// LoadAll returns every entry, as Load does otherwise.
	LoadAll(ctx context.Context, settingsID, conversationID string) ([]Entry, error)

	// List returns the tenant's conversations, most recently updated first.
	List(ctx context.Context, settingsID string, opts ListOptions) ([]ConversationInfo, error)

	// Delete erases the conversation: its entries, its lease and its pending
	// events. It fails with ErrNotFound when there is nothing to erase.
	Delete(ctx context.Context, settingsID, conversationID string) error

	// Publish sends an event of a streaming run to the conversation's
	// watchers. Events are not stored; a watcher that starts later does not
	// see earlier ones.
	Publish(ctx context.Context, settingsID, conversationID string, event []byte) error

	// Watch returns the events published to the conversation from now until
	// ctx ends, in the order they were published, then closes the channel. A
	// watcher that falls too far behind is closed early (ctx.Err() is nil
	// then); it may reload the conversation and watch again.
	Watch(ctx context.Context, settingsID, conversationID string) (<-chan []byte, error)
}

// Store keeps both settings and conversations.
type Store interface {
	SettingsStore
	ConversationStore
}
