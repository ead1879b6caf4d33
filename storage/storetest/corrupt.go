package storetest

import "context"

// Corruption names a way a stored entry can be broken.
type Corruption int

// The kinds of damage the suite asks a [Corrupter] for.
const (
	// CorruptData: the entry's data is not JSON.
	CorruptData Corruption = iota + 1
	// CorruptType: the entry's type is not one of storage's entry types.
	CorruptType
	// CorruptFutureVersion: the entry was written by a newer schema version.
	CorruptFutureVersion
)

// String describes the damage, for the suite's messages.
func (c Corruption) String() string {
	switch c {
	case CorruptData:
		return "data that is not JSON"
	case CorruptType:
		return "an unknown type"
	case CorruptFutureVersion:
		return "a future schema version"
	}
	return "unknown corruption"
}

// Corrupter is implemented by a store (usually a test wrapper around it) that
// can write a broken entry behind the API's back, so the suite can check that
// Load reports a *storage.CorruptEntryError instead of misreading it.
type Corrupter interface {
	// Corrupt appends an entry damaged as c says to a conversation that has
	// exactly one entry, so the broken one gets sequence number 2. It returns
	// an error wrapping errors.ErrUnsupported when the store cannot hold such
	// damage (a JSONB column cannot hold text that is not JSON).
	Corrupt(ctx context.Context, settingsID, conversationID string, c Corruption) error
}
