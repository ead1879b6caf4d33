package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Document is one settings document of a tenant: a JSON value of one kind (an
// agent's settings, a toolset's overrides) with the schema version of the
// type that wrote it.
type Document struct {
	// SettingsID is the tenant the document belongs to.
	SettingsID string
	// Kind names what the document holds, such as an agent's settings type.
	Kind string
	// SchemaVersion is the version of the type that wrote Data; the reader
	// decides how to read older versions. The store only keeps it.
	SchemaVersion int
	// Revision counts the writes of the document from 1; PutSettings sets it.
	Revision int64
	// Data is the document's JSON. Stores may normalise its spacing and key
	// order (Postgres keeps JSONB), never its meaning.
	Data json.RawMessage
	// UpdatedAt is when the document was last written; the store sets it.
	UpdatedAt time.Time
}

// SettingsStore keeps settings documents by (settings id, kind).
type SettingsStore interface {
	// GetSettings returns the document, or an error wrapping ErrNotFound.
	GetSettings(ctx context.Context, settingsID, kind string) (Document, error)

	// PutSettings writes doc when the stored revision is expectRevision: 0
	// means the document must not exist yet. Otherwise it fails with
	// ErrConflict. It returns the document as stored, with its new revision
	// and time.
	PutSettings(ctx context.Context, doc Document, expectRevision int64) (Document, error)

	// DeleteSettings removes the document, or fails with ErrNotFound.
	DeleteSettings(ctx context.Context, settingsID, kind string) error
}

// CheckDocumentKey reports ErrInvalid when a settings id or kind is one no
// store holds: empty, longer than [MaxIDLength] bytes, not valid UTF-8, or
// with a NUL byte.
func CheckDocumentKey(settingsID, kind string) error {
	if err := CheckIDs(settingsID); err != nil {
		return err
	}
	return checkID("settings kind", kind)
}

// PrepareDocument checks a document given to PutSettings: its key, a
// non-negative schema version, and data that is one JSON value every store
// holds (see [CheckJSON]).
func PrepareDocument(doc Document) (Document, error) {
	if err := CheckDocumentKey(doc.SettingsID, doc.Kind); err != nil {
		return doc, err
	}
	if doc.SchemaVersion < 0 {
		return doc, fmt.Errorf("storage: settings %q: schema version %d: %w", doc.Kind, doc.SchemaVersion, ErrInvalid)
	}
	if err := CheckJSON(doc.Data); err != nil {
		return doc, fmt.Errorf("storage: settings %q: data: %w", doc.Kind, err)
	}
	return doc, nil
}

// CheckStoredDocument checks a document read back from a store and returns a
// [*CorruptSettingsError] when it cannot be used: a revision below 1, a
// negative schema version, or (when checkData) data that is not JSON a store
// holds. A store whose column only holds JSON (Postgres jsonb) passes false.
func CheckStoredDocument(doc Document, checkData bool) error {
	var err error
	switch {
	case doc.Revision < 1:
		err = fmt.Errorf("revision %d", doc.Revision)
	case doc.SchemaVersion < 0:
		err = fmt.Errorf("schema version %d", doc.SchemaVersion)
	case checkData:
		if jerr := CheckJSON(doc.Data); jerr != nil {
			err = fmt.Errorf("data is not JSON a store holds: %v", jerr)
		}
	}
	if err != nil {
		return &CorruptSettingsError{SettingsID: doc.SettingsID, Kind: doc.Kind, Err: err}
	}
	return nil
}
