package storeutil

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// nullJSON is what empty entry data is stored as.
var nullJSON = json.RawMessage("null")

// checkKind checks a settings kind as storage.CheckIDs checks an id: not empty, at most storage.MaxIDLength
// bytes, text a store holds.
func checkKind(kind string) error {
	switch {
	case kind == "":
		return fmt.Errorf("storage: empty settings kind: %w", storage.ErrInvalid)
	case len(kind) > storage.MaxIDLength:
		return fmt.Errorf("storage: settings kind of %d bytes, more than %d: %w", len(kind), storage.MaxIDLength, storage.ErrInvalid)
	}
	return storage.CheckText("settings kind", kind)
}

// PrepareEntry checks an entry given to Append and returns it as a store
// keeps it. Its type must be known, its data JSON every store holds (see
// [storage.CheckJSON]) and its run id, agent and author text (see [storage.CheckText]);
// otherwise it reports [storage.ErrInvalid]. Empty Data becomes JSON null and Time, when set, is truncated to
// microseconds in UTC. Stores call it so they all accept and reject alike.
func PrepareEntry(e storage.Entry) (storage.Entry, error) {
	if !validEntryType(e.Type) {
		return e, fmt.Errorf("storage: entry type %q: %w", e.Type, storage.ErrInvalid)
	}
	if e.Seq < 0 {
		return e, fmt.Errorf("storage: entry sequence %d: %w", e.Seq, storage.ErrInvalid)
	}
	for _, f := range [...]struct{ what, s string }{{"run id", e.RunID}, {"agent", e.Agent}, {"author", e.Author}} {
		if err := storage.CheckText(string(e.Type)+" entry's "+f.what, f.s); err != nil {
			return e, err
		}
	}
	if len(e.Data) == 0 {
		e.Data = nullJSON
	} else if err := storage.CheckJSON(e.Data); err != nil {
		return e, fmt.Errorf("storage: %s entry data: %w", e.Type, err)
	}
	if !e.Time.IsZero() {
		e.Time = Timestamp(e.Time)
	}
	return e, nil
}

// CheckStoredEntry checks an entry read back from a store and returns a
// [*storage.CorruptEntryError] when it cannot be used: unknown type, a schema version
// newer than [storage.EntrySchemaVersion], or (when checkData) data that is not JSON.
// A store whose column only holds JSON (Postgres jsonb) passes false rather
// than parse every entry again.
func CheckStoredEntry(conversationID string, e storage.Entry, schemaVersion int, checkData bool) error {
	var err error
	switch {
	case schemaVersion > storage.EntrySchemaVersion:
		err = fmt.Errorf("schema version %d is newer than %d", schemaVersion, storage.EntrySchemaVersion)
	case schemaVersion < 1:
		err = fmt.Errorf("schema version %d", schemaVersion)
	case !validEntryType(e.Type):
		err = fmt.Errorf("unknown entry type %q", e.Type)
	case checkData:
		if jerr := storage.CheckJSON(e.Data); jerr != nil {
			err = fmt.Errorf("data is not JSON a store holds: %v", jerr)
		}
	}
	if err != nil {
		return &storage.CorruptEntryError{ConversationID: conversationID, Seq: e.Seq, Err: err}
	}
	return nil
}

// Timestamp returns t as stores keep it: UTC, truncated to microseconds (the
// precision of a Postgres timestamptz), so what Append returns equals what
// Load reads.
func Timestamp(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// CheckLeaseOwner reports [storage.ErrInvalid] when a claim's owner is not text a
// store holds (see [storage.CheckText]). A store's Claim calls it.
func CheckLeaseOwner(owner string) error { return storage.CheckText("lease owner", owner) }

// CheckTTL reports [storage.ErrInvalid] when a lease time is not positive.
func CheckTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("storage: lease time %v: %w", ttl, storage.ErrInvalid)
	}
	return nil
}

// CheckClaim reports [storage.ErrInvalid] when c lacks ids or a token, which no store
// ever hands out.
func CheckClaim(c storage.Claim) error {
	if err := storage.CheckIDs(c.SettingsID, c.ConversationID); err != nil {
		return err
	}
	if c.Token == "" {
		return fmt.Errorf("storage: claim without a token: %w", storage.ErrInvalid)
	}
	return nil
}

// CheckDocumentKey reports [storage.ErrInvalid] when a settings id or kind is one no
// store holds: empty, longer than [storage.MaxIDLength] bytes, not valid UTF-8, or
// with a NUL byte.
func CheckDocumentKey(settingsID, kind string) error {
	if err := storage.CheckIDs(settingsID); err != nil {
		return err
	}
	return checkKind(kind)
}

// PrepareDocument checks a document given to PutSettings: its key, a
// non-negative schema version, and data that is one JSON value every store
// holds (see [storage.CheckJSON]).
func PrepareDocument(doc storage.Document) (storage.Document, error) {
	if err := CheckDocumentKey(doc.SettingsID, doc.Kind); err != nil {
		return doc, err
	}
	if doc.SchemaVersion < 0 {
		return doc, fmt.Errorf("storage: settings %q: schema version %d: %w", doc.Kind, doc.SchemaVersion, storage.ErrInvalid)
	}
	if err := storage.CheckJSON(doc.Data); err != nil {
		return doc, fmt.Errorf("storage: settings %q: data: %w", doc.Kind, err)
	}
	return doc, nil
}

// CheckStoredDocument checks a document read back from a store and returns a
// [*storage.CorruptSettingsError] when it cannot be used: a revision below 1, a
// negative schema version, or (when checkData) data that is not JSON a store
// holds. A store whose column only holds JSON (Postgres jsonb) passes false.
func CheckStoredDocument(doc storage.Document, checkData bool) error {
	var err error
	switch {
	case doc.Revision < 1:
		err = fmt.Errorf("revision %d", doc.Revision)
	case doc.SchemaVersion < 0:
		err = fmt.Errorf("schema version %d", doc.SchemaVersion)
	case checkData:
		if jerr := storage.CheckJSON(doc.Data); jerr != nil {
			err = fmt.Errorf("data is not JSON a store holds: %v", jerr)
		}
	}
	if err != nil {
		return &storage.CorruptSettingsError{SettingsID: doc.SettingsID, Kind: doc.Kind, Err: err}
	}
	return nil
}

// CheckBudgetReservation checks r's ids and figures; stores call it so they all reject alike.
func CheckBudgetReservation(r storage.BudgetReservation) error {
	if err := CheckDocumentKey(r.SettingsID, storage.BudgetKind); err != nil {
		return err
	}
	if err := storage.CheckText("run id", r.RunID); err != nil || r.RunID == "" {
		return fmt.Errorf("storage: budget: run id %q: %w", r.RunID, storage.ErrInvalid)
	}
	if err := storage.CheckText("conversation id", r.ConversationID); err != nil {
		return err
	}
	if err := storage.CheckText("lease token", r.LeaseToken); err != nil {
		return err
	}
	if r.Settle.Tokens < 0 || r.Settle.Nanos < 0 || r.Reserve.Tokens < 0 || r.Reserve.Nanos < 0 {
		return fmt.Errorf("storage: budget: negative spend: %w", storage.ErrInvalid)
	}
	if r.TTL <= 0 && !r.End {
		return fmt.Errorf("storage: budget: ttl %v: %w", r.TTL, storage.ErrInvalid)
	}
	return nil
}

// CheckBudgetEnds checks the settlements given to EndRun under claim c with n entries; stores call it so
// they all reject alike.
func CheckBudgetEnds(c storage.Claim, ends []storage.BudgetReservation, n int) error {
	if len(ends) > 0 && n == 0 {
		return fmt.Errorf("storage: budget ends without entries to store them with: %w", storage.ErrInvalid)
	}
	for _, e := range ends {
		if err := CheckBudgetReservation(e); err != nil {
			return err
		}
		if !e.End || e.SettingsID != c.SettingsID {
			return fmt.Errorf("storage: budget end of run %q: not an end of the claim's tenant: %w", e.RunID, storage.ErrInvalid)
		}
	}
	return nil
}
