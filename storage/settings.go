package storage

import (
	"context"
	"encoding/json"
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
