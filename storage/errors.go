package storage

import (
	"errors"
	"fmt"
)

// Errors a caller branches on with errors.Is. Stores wrap them with the ids
// involved, so print the error rather than comparing it.
var (
	// ErrNotFound reports a settings document or conversation that does not exist
	// for the settings id given.
	ErrNotFound = errors.New("not found")

	// ErrConflict reports a compare-and-set that lost: the document's revision
	// was not the one expected, or an entry's sequence number was not the next.
	ErrConflict = errors.New("conflict")

	// ErrConversationBusy reports that another live claim holds the
	// conversation, so no second run may start on it now.
	ErrConversationBusy = errors.New("conversation busy")

	// ErrClaimLost reports that a claim is no longer the conversation's live
	// lease: it expired, was released, was taken over, or the conversation was
	// deleted. The run holding it must stop writing.
	ErrClaimLost = errors.New("claim lost")

	// ErrInvalid reports arguments no store accepts: an empty, overlong or
	// non-text id, an unknown entry type, data that is not JSON a store holds
	// (see CheckJSON), a lease time that is not positive.
	ErrInvalid = errors.New("invalid argument")
)

// CorruptEntryError reports a stored entry that cannot be read back: its data
// is not JSON, its type is unknown, or it was written by a newer schema
// version than this code knows. Load returns it instead of a partial list, so
// a run never continues from a history it misread.
type CorruptEntryError struct {
	// ConversationID and Seq name the entry.
	ConversationID string
	Seq            int64
	// Err says what is wrong with it.
	Err error
}

// Error names the conversation, the entry and what is wrong with it.
func (e *CorruptEntryError) Error() string {
	return fmt.Sprintf("storage: conversation %q: corrupt entry %d: %v", e.ConversationID, e.Seq, e.Err)
}

// Unwrap returns the reason the entry could not be read.
func (e *CorruptEntryError) Unwrap() error { return e.Err }

// CorruptSettingsError reports a stored settings document that cannot be read
// back: a column the store cannot scan, a revision below 1, a negative schema
// version, or data that is not JSON. GetSettings returns it instead of a
// document it misread.
type CorruptSettingsError struct {
	// SettingsID and Kind name the document.
	SettingsID, Kind string
	// Err says what is wrong with it.
	Err error
}

// Error names the document and what is wrong with it.
func (e *CorruptSettingsError) Error() string {
	return fmt.Sprintf("storage: settings %q of %q: corrupt document: %v", e.Kind, e.SettingsID, e.Err)
}

// Unwrap returns the reason the document could not be read.
func (e *CorruptSettingsError) Unwrap() error { return e.Err }
