package storage

import (
	"context"
	"errors"
	"time"
)

// ErrNotRunning reports steering input for a conversation that no live claim
// holds: there is no run to take it in, and it was not stored.
var ErrNotRunning = errors.New("no live run holds the conversation")

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
	// EventHead is the id of the conversation's last event when it was
	// claimed (see EventHead): the holder numbers its run's events from
	// EventHead+1 on and sets EventHead to the last of them before Release
	// or RunStore.EndRun, which keep it for the next run.
	EventHead int64
	// Watched reports that a process other than this one watched the
	// conversation when it was claimed (see EventRelay); the store sets it.
	Watched bool
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

// MaxListLimit is the largest page of List.
const MaxListLimit = 1000

// ConversationInfo describes one conversation in a List.
type ConversationInfo struct {
	// ConversationID names the conversation within its tenant.
	ConversationID string
	// CreatedAt is when the conversation's first entry was stored.
	CreatedAt time.Time
	// UpdatedAt is when an entry that moves it was last stored (see
	// storeutil.Touches: input, run start and end, not each step); List
	// orders by it.
	UpdatedAt time.Time
	// LastSeq is the sequence number of its last entry.
	LastSeq int64
	// Cursor continues the listing after this conversation (ListOptions.After).
	Cursor string
}

// ConversationStore keeps conversations: append-only lists of entries, a
// lease that lets one run at a time write, steering input for the live run,
// and the numbering of its streaming runs' events.
// A conversation exists once it has an entry.
type ConversationStore interface {
	// Claim takes the conversation's single live-run lease for owner, for ttl.
	// It fails with ErrConversationBusy while another claim is live; an
	// expired lease is taken over, and the steering input queued under it
	// moved into the conversation's entries.
	Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (Claim, error)

	// Renew extends a live claim to ttl from now, or fails with ErrClaimLost.
	Renew(ctx context.Context, c Claim, ttl time.Duration) (Claim, error)

	// Release gives the lease up, after moving the steering input still
	// queued into the conversation's entries (see Steer). It fails with
	// ErrClaimLost when the lease is no longer c's.
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

	// Delete erases the conversation: its entries, its lease, its queued
	// steering input and its events. It fails with ErrNotFound when there is
	// nothing to erase.
	Delete(ctx context.Context, settingsID, conversationID string) error

	// Steer queues data, a JSON value, as steering input for the
	// conversation's live run. It stores the input durably only while a live
	// claim holds the conversation, checked in the same step, and fails with
	// ErrNotRunning otherwise; it never claims the conversation itself. Queued
	// input is moved into the conversation's entries, as EntrySteering
	// entries, by the claim holder's TakeSteering, by Release of that claim,
	// or, when the claim expired without a release, by the next Claim. So
	// input Steer accepted is never lost: the live run takes it in, or the
	// stored conversation keeps it for the next run. Steer signals the
	// conversation's WatchSteering channels.
	Steer(ctx context.Context, settingsID, conversationID string, data []byte) error

	// TakeSteering moves the steering input queued for c's conversation into
	// its entries, in one step under the live claim (ErrClaimLost
	// otherwise), and returns the entries as stored, oldest input first;
	// none when nothing is queued. Each entry gets stamp's RunID, Agent and
	// Author.
	TakeSteering(ctx context.Context, c Claim, stamp Entry) ([]Entry, error)

	// WatchSteering returns a channel that receives a value whenever
	// steering input may have been queued for the conversation, until ctx
	// ends, then closes. It carries nothing to trust: the receiver holding
	// the claim calls TakeSteering, which reads what the store holds. Values
	// are coalesced, and a store may send one without new input (after it
	// reconnected, for example).
	WatchSteering(ctx context.Context, settingsID, conversationID string) (<-chan struct{}, error)

	// EventRange returns the span of the conversation's event ids: its
	// events are numbered above Base, and Head is the last as a Release, a
	// RunStore.EndRun or an EventRelay's Publish stored it. Base is the time the
	// conversation was first claimed, in microseconds since 1970, so that the
	// ids of a conversation deleted and created again never repeat: a watcher
	// that resumes after an id below Base watched the deleted one. It fails
	// with ErrNotFound for a conversation that does not exist.
	EventRange(ctx context.Context, settingsID, conversationID string) (EventRange, error)
}

// EventRange is the span of a conversation's event ids (see
// ConversationStore.EventRange).
type EventRange struct {
	Base, Head int64
}

// Store keeps both settings and conversations.
type Store interface {
	SettingsStore
	ConversationStore
}
