package memory

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// GetSettings implements [storage.SettingsStore].
func (s *Store) GetSettings(ctx context.Context, settingsID, kind string) (storage.Document, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Document{}, err
	}
	if err := checkDocIDs(settingsID, kind); err != nil {
		return storage.Document{}, err
	}
	s.mu.Lock()
	doc, ok := s.settings[docKey{settingsID, kind}]
	s.mu.Unlock()
	if !ok {
		return storage.Document{}, fmt.Errorf("memory: settings %q of %q: %w", kind, settingsID, storage.ErrNotFound)
	}
	if err := storeutil.CheckStoredDocument(doc, true); err != nil {
		return storage.Document{}, err
	}
	doc.Data = cloneBytes(doc.Data)
	return doc, nil
}

// PutSettings implements [storage.SettingsStore].
func (s *Store) PutSettings(ctx context.Context, doc storage.Document, expectRevision int64) (storage.Document, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Document{}, err
	}
	doc, err := prepareDoc(doc)
	if err != nil {
		return storage.Document{}, err
	}
	key := docKey{doc.SettingsID, doc.Kind}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, exists := s.settings[key]
	var have int64
	if exists {
		have = cur.Revision
	}
	if have != expectRevision {
		return storage.Document{}, fmt.Errorf("memory: settings %q of %q: revision is %d, not %d: %w",
			doc.Kind, doc.SettingsID, have, expectRevision, storage.ErrConflict)
	}
	doc.Revision = have + 1
	doc.UpdatedAt = s.clock()
	doc.Data = cloneBytes(doc.Data)
	s.settings[key] = doc
	doc.Data = cloneBytes(doc.Data)
	return doc, nil
}

// DeleteSettings implements [storage.SettingsStore].
func (s *Store) DeleteSettings(ctx context.Context, settingsID, kind string) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := checkDocIDs(settingsID, kind); err != nil {
		return err
	}
	key := docKey{settingsID, kind}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.settings[key]; !ok {
		return fmt.Errorf("memory: settings %q of %q: %w", kind, settingsID, storage.ErrNotFound)
	}
	delete(s.settings, key)
	return nil
}

func checkDocIDs(settingsID, kind string) error { return storeutil.CheckDocumentKey(settingsID, kind) }

func prepareDoc(doc storage.Document) (storage.Document, error) {
	return storeutil.PrepareDocument(doc)
}
