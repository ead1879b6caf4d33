package storage

import (
	"context"
	"time"
)

// LeaseRenewer is a ConversationStore that renews many claims at once, on a
// path of its own: a host with a thousand live runs renews them all in one
// call per tick, and the renewal does not wait behind the store's other work
// (for Postgres: behind the queries queued for the pool's connections). The
// agent package uses it when the store offers it and falls back to Renew,
// claim by claim, otherwise.
type LeaseRenewer interface {
	// RenewLeases extends each claim of cs that is still its conversation's
	// live lease to ttl from now. It returns one Renewal per claim, in the
	// order of cs. A claim that is no longer live gets ErrClaimLost and is
	// not extended, whatever the other claims are: a claim never extends a
	// lease of another tenant or another token. An error of its own (the
	// store unreachable, ctx ended) means nothing is known about any claim;
	// the caller tries again later.
	RenewLeases(ctx context.Context, cs []Claim, ttl time.Duration) ([]Renewal, error)
}

// Renewal is what RenewLeases did with one claim.
type Renewal struct {
	// Claim is the claim renewed, with its new expiry; when Err is set, the
	// claim as given.
	Claim Claim
	// Err is nil when the lease was extended; it wraps ErrClaimLost when the
	// claim is no longer live and ErrInvalid when it was malformed.
	Err error
}

// ClaimLoader is a Store that claims a conversation and loads it in one
// round trip, with the tenant's settings documents a run reads first.
type ClaimLoader interface {
	// ClaimLoad is Claim, then Load, then GetSettings of each kind. When
	// the claim fails it returns its error, as Claim does, and a zero
	// Claimed. When the claim succeeds, Claimed.Claim holds it even when
	// err is not nil (the entries or a document could not be read: a
	// *CorruptEntryError, say), and the caller, who holds the claim,
	// releases it. A conversation without entries gives none and no error.
	ClaimLoad(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration, kinds ...string) (Claimed, error)
}

// Claimed is what ClaimLoad took and read.
type Claimed struct {
	// Claim is the claim taken.
	Claim Claim
	// Entries are those Load returns.
	Entries []Entry
	// Settings holds the documents of the kinds asked for that exist, by
	// kind.
	Settings map[string]Document
}

// AppendReleaser is a ConversationStore that stores a run's last entries and
// gives its lease up in one round trip.
type AppendReleaser interface {
	// AppendRelease is Append followed by Release, all or nothing: when the
	// entries cannot be stored (ErrClaimLost, say) the lease is not released
	// by it either. With no entries it is Release.
	AppendRelease(ctx context.Context, c Claim, entries ...Entry) ([]Entry, error)
}

// SteeringStorer is a ConversationStore that stores steering input whether or
// not a run holds the conversation, in one step and without claiming it:
// while a live claim holds the conversation the input is queued as Steer
// queues it (the run takes it in, or its release stores it); otherwise it is
// stored at once as the conversation's next entry, after any input a crashed
// run left queued, where the next run reads it. Background runs report to
// their callers through it, so that a report never makes a user's run fail as
// busy.
type SteeringStorer interface {
	// StoreSteering stores data as described above. It fails with ErrNotFound
	// for a conversation the tenant does not have (never claimed), and with
	// ErrInvalid for data that is not JSON.
	StoreSteering(ctx context.Context, settingsID, conversationID string, data []byte) error
}
