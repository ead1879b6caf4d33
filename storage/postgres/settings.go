package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

const (
	qGetSettings = `SELECT schema_version, revision, data, updated_at FROM settings_documents
WHERE settings_id = $1 AND kind = $2`

	qInsertSettings = `INSERT INTO settings_documents (settings_id, kind, schema_version, revision, data, updated_at)
VALUES ($1, $2, $3, 1, $4, now())
ON CONFLICT (settings_id, kind) DO NOTHING
RETURNING revision, updated_at`

	qUpdateSettings = `UPDATE settings_documents
SET schema_version = $3, revision = revision + 1, data = $4, updated_at = now()
WHERE settings_id = $1 AND kind = $2 AND revision = $5
RETURNING revision, updated_at`

	qCurrentRevision = `SELECT coalesce((SELECT revision FROM settings_documents WHERE settings_id = $1 AND kind = $2), 0)`

	qDeleteSettings = `DELETE FROM settings_documents WHERE settings_id = $1 AND kind = $2`
)

// GetSettings implements [storage.SettingsStore].
func (s *Store) GetSettings(ctx context.Context, settingsID, kind string) (storage.Document, error) {
	if err := storeutil.CheckDocumentKey(settingsID, kind); err != nil {
		return storage.Document{}, err
	}
	doc := storage.Document{SettingsID: settingsID, Kind: kind}
	b := tenantBatch(settingsID)
	b.Queue(qGetSettings, settingsID, kind)
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		// Into []byte, which pgx copies as it is: into a json.RawMessage it
		// would parse it with encoding/json, which stops at 10,000 levels.
		var data []byte
		err := br.QueryRow().Scan(&doc.SchemaVersion, &doc.Revision, &data, &doc.UpdatedAt)
		doc.Data = data
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Document{}, fmt.Errorf("postgres: settings %q of %q: %w", kind, settingsID, storage.ErrNotFound)
	}
	var scanErr pgx.ScanArgError
	if errors.As(err, &scanErr) {
		// The row is there but does not read as a document: a column changed
		// behind the store's back.
		return storage.Document{}, &storage.CorruptSettingsError{SettingsID: settingsID, Kind: kind, Err: err}
	}
	if err != nil {
		return storage.Document{}, wrap("get settings", err)
	}
	if err := storeutil.CheckStoredDocument(doc, false); err != nil {
		return storage.Document{}, err
	}
	doc.UpdatedAt = doc.UpdatedAt.UTC()
	return doc, nil
}

// PutSettings implements [storage.SettingsStore].
func (s *Store) PutSettings(ctx context.Context, doc storage.Document, expectRevision int64) (storage.Document, error) {
	doc, err := storeutil.PrepareDocument(doc)
	if err != nil {
		return storage.Document{}, err
	}
	b := tenantBatch(doc.SettingsID)
	if expectRevision == 0 {
		b.Queue(qInsertSettings, doc.SettingsID, doc.Kind, doc.SchemaVersion, string(doc.Data))
	} else {
		b.Queue(qUpdateSettings, doc.SettingsID, doc.Kind, doc.SchemaVersion, string(doc.Data), expectRevision)
	}
	// Read the revision in the same transaction, for the conflict's message.
	b.Queue(qCurrentRevision, doc.SettingsID, doc.Kind)
	var have int64
	stored := false
	err = s.send(ctx, b, func(br pgx.BatchResults) error {
		err := br.QueryRow().Scan(&doc.Revision, &doc.UpdatedAt)
		switch {
		case err == nil:
			stored = true
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		return br.QueryRow().Scan(&have)
	})
	if err != nil {
		return storage.Document{}, wrap("put settings", err)
	}
	if !stored {
		return storage.Document{}, fmt.Errorf("postgres: settings %q of %q: revision is %d, not %d: %w",
			doc.Kind, doc.SettingsID, have, expectRevision, storage.ErrConflict)
	}
	doc.UpdatedAt = doc.UpdatedAt.UTC()
	return doc, nil
}

// DeleteSettings implements [storage.SettingsStore].
func (s *Store) DeleteSettings(ctx context.Context, settingsID, kind string) error {
	if err := storeutil.CheckDocumentKey(settingsID, kind); err != nil {
		return err
	}
	b := tenantBatch(settingsID)
	b.Queue(qDeleteSettings, settingsID, kind)
	n, err := s.sendExec(ctx, b)
	if err != nil {
		return wrap("delete settings", err)
	}
	if n == 0 {
		return fmt.Errorf("postgres: settings %q of %q: %w", kind, settingsID, storage.ErrNotFound)
	}
	return nil
}
