package storage

import (
	"context"
	"time"
)

// RunStore is the way a run goes to its store: it begins with BeginRun, keeps its claim with RenewRuns while it
// goes on, stores its steps with ConversationStore.Append, and ends with EndRun. Each of the three is one step of
// the store (for Postgres: one round trip) where the basic methods would take several. Callers get one for any
// Store from storeutil.Runs, which returns the store's own when it implements RunStore and otherwise builds one
// from the basic methods (and Budgeter's, for reservations): a store need not implement it to serve runs, and
// one that does spares a round trip or more per run (see docs/storage.md).
type RunStore interface {
	// BeginRun claims the run's conversation, loads it and reads the tenant's settings documents of the kinds
	// asked for, in one step. A run without a conversation (RunBegin.ConversationID "") claims and loads
	// nothing: BeginRun reads the settings and, when asked, reserves the run's first model call.
	//
	// When the claim fails it returns the claim's error, as Claim does, and a zero RunBegun. When the claim
	// succeeds, RunBegun.Claim holds it even when err is not nil (the entries or a document could not be read:
	// a *CorruptEntryError or a *CorruptSettingsError, say), and the caller, who holds the claim, releases it.
	// A conversation without entries gives none and no error; a kind the tenant has no document of is missing
	// from RunBegun.Settings.
	BeginRun(ctx context.Context, b RunBegin) (RunBegun, error)

	// RenewRuns extends each claim of cs that is still its conversation's live lease to ttl from now. It returns
	// one Renewal per claim, in the order of cs. A claim that is no longer live gets ErrClaimLost and is not
	// extended, whatever the other claims are: a claim never extends a lease of another tenant or another
	// token. An error of its own (the store unreachable, ctx ended) means nothing is known about any claim; the
	// caller tries again later. A host with a thousand live runs renews them all in one call per tick.
	RenewRuns(ctx context.Context, cs []Claim, ttl time.Duration) ([]Renewal, error)

	// EndRun stores the run's last entries, settles its budget (RunEnd.Settle, each as Budgeter.ReserveBudget
	// would) and releases its claim, all or nothing: when the entries cannot be stored (ErrClaimLost, say)
	// the lease is not released and nothing is settled. With no entries it is Release, and settlements need
	// entries to ride on. A run without a conversation (a zero RunEnd.Claim) only settles. It returns the
	// entries as stored.
	EndRun(ctx context.Context, e RunEnd) ([]Entry, error)

	// StoreSteering stores data, a JSON value, as steering input for the conversation whether or not a run
	// holds it, in one step and without claiming it: while a live claim holds the conversation the input is
	// queued as Steer queues it (the run takes it in, or its release stores it); otherwise it is stored at once
	// as the conversation's next entry, after any input a crashed run left queued, where the next run reads it.
	// Background runs report to their callers through it, so that a report never makes a user's run fail as
	// busy. It fails with ErrNotFound for a conversation the tenant does not have (never claimed), and with
	// ErrInvalid for data that is not JSON.
	StoreSteering(ctx context.Context, settingsID, conversationID string, data []byte) error
}

// RunBegin is what a run asks of its store as it begins (RunStore.BeginRun).
type RunBegin struct {
	// SettingsID is the run's tenant; ConversationID its conversation, or "" for a run without one.
	SettingsID, ConversationID string
	// Owner names the claim's holder and TTL is how long the claim lasts unless renewed; unused without a
	// conversation.
	Owner string
	TTL   time.Duration
	// Kinds are the kinds of the tenant's settings documents to read.
	Kinds []string
	// Reserve, when not nil, is reserved as Budgeter.ReserveBudget would, before the settings are read: the
	// run's first model call, reserved ahead of it. Only a run without a conversation asks (ErrInvalid
	// otherwise), and only of a store that keeps budgets (Budgeter).
	Reserve *BudgetReservation
}

// RunBegun is what RunStore.BeginRun took and read.
type RunBegun struct {
	// Claim is the claim taken; zero for a run without a conversation.
	Claim Claim
	// Entries are those Load returns.
	Entries []Entry
	// Settings holds the documents of the kinds asked for that exist, by kind.
	Settings map[string]Document
	// Reserved reports that RunBegin.Reserve is reserved: the run holds it, to end with EndRun. ReserveErr is
	// why not, when a reservation was asked: a *BudgetExceededError when refused. Both are apart from BeginRun's
	// error: the settings may be read while the reservation is refused, and the other way round.
	Reserved   bool
	ReserveErr error
}

// RunEnd is what a run stores as it ends (RunStore.EndRun).
type RunEnd struct {
	// Claim is the run's claim, given up; zero for a run without a conversation.
	Claim Claim
	// Entries are the run's last entries.
	Entries []Entry
	// Settle ends the run's budget reservations: each must be of the claim's tenant, with End set.
	Settle []BudgetReservation
}

// Renewal is what RenewRuns did with one claim.
type Renewal struct {
	// Claim is the claim renewed, with its new expiry; when Err is set, the claim as given.
	Claim Claim
	// Err is nil when the lease was extended; it wraps ErrClaimLost when the claim is no longer live and
	// ErrInvalid when it was malformed.
	Err error
}
