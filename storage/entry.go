package storage

import (
	"encoding/json"
	"fmt"
	"time"
)

// EntryType says what a conversation entry holds, so a run can rebuild its
// history without guessing from the data.
type EntryType string

// The entry types a conversation holds.
const (
	// EntryInput is the caller's input that started or continued a run.
	EntryInput EntryType = "input"
	// EntryResponse is one response of the model, stored as it arrives.
	EntryResponse EntryType = "response"
	// EntryToolResults holds the results of the tool calls of one step.
	EntryToolResults EntryType = "tool_results"
	// EntryApprovalRequests holds the tool calls waiting for a person's answer.
	EntryApprovalRequests EntryType = "approval_requests"
	// EntryApprovalAnswers holds the answers given to approval requests.
	EntryApprovalAnswers EntryType = "approval_answers"
	// EntrySteering holds input the caller sent while a run was going on.
	EntrySteering EntryType = "steering"
	// EntryRunStart marks the beginning of a run.
	EntryRunStart EntryType = "run_start"
	// EntryRunEnd marks the end of a run, with its mode and outcome.
	EntryRunEnd EntryType = "run_end"
	// EntrySummary replaces everything before it for Load: a run reads from
	// the last summary on.
	EntrySummary EntryType = "summary"
)

// Valid reports whether t is one of the entry types above.
func (t EntryType) Valid() bool {
	switch t {
	case EntryInput, EntryResponse, EntryToolResults, EntryApprovalRequests, EntryApprovalAnswers,
		EntrySteering, EntryRunStart, EntryRunEnd, EntrySummary:
		return true
	}
	return false
}

// Touches reports whether appending an entry of type t moves its
// conversation's UpdatedAt, the order of List. Input, steering, the start and
// end of a run, approval answers and summaries do; the steps inside a run
// (responses, tool results, approval requests) do not, since a run that is
// going on began with an entry that did, and ends with one. This keeps the
// per-step write cheap: in Postgres it changes no indexed column.
func (t EntryType) Touches() bool {
	switch t {
	case EntryResponse, EntryToolResults, EntryApprovalRequests:
		return false
	}
	return true
}

// EntrySchemaVersion is the version of the entry format this code writes. A
// stored entry with a higher version was written by newer code and is
// reported as a [*CorruptEntryError] rather than misread; an entry with a
// lower one loads as it is.
//
// Version 2 added message parts (files, reasoning) and usage counts (cached
// and reasoning tokens) to the JSON of messages; version 1 entries have none
// of them and read the same as before. Code that only knows version 1 refuses
// version 2 entries instead of failing on a part type it does not know.
const EntrySchemaVersion = 2

// Entry is one item of a conversation.
type Entry struct {
	// Seq numbers the entries of a conversation from 1 without gaps; the store
	// assigns it. A non-zero Seq given to Append must be the number the store
	// would assign, or Append fails with ErrConflict.
	Seq int64
	// Type says what Data holds.
	Type EntryType
	// RunID, Agent and Author say which run, agent and speaker wrote the entry.
	RunID, Agent, Author string
	// Time is when the entry was stored; Append sets it when zero. Stores keep
	// microseconds, in UTC.
	Time time.Time
	// Data is the entry's JSON. Empty data is stored as JSON null.
	Data json.RawMessage
}

// nullJSON is what empty entry data is stored as.
var nullJSON = json.RawMessage("null")

// PrepareEntry checks an entry given to Append and returns it as a store
// keeps it. Its type must be known, its data JSON every store holds (see
// [CheckJSON]) and its run id, agent and author text (see [CheckText]);
// otherwise it reports ErrInvalid. Empty Data becomes JSON null and Time, when set, is truncated to
// microseconds in UTC. Stores call it so they all accept and reject alike.
func PrepareEntry(e Entry) (Entry, error) {
	if !e.Type.Valid() {
		return e, fmt.Errorf("storage: entry type %q: %w", e.Type, ErrInvalid)
	}
	if e.Seq < 0 {
		return e, fmt.Errorf("storage: entry sequence %d: %w", e.Seq, ErrInvalid)
	}
	for _, f := range [...]struct{ what, s string }{{"run id", e.RunID}, {"agent", e.Agent}, {"author", e.Author}} {
		if err := CheckText(string(e.Type)+" entry's "+f.what, f.s); err != nil {
			return e, err
		}
	}
	if len(e.Data) == 0 {
		e.Data = nullJSON
	} else if err := CheckJSON(e.Data); err != nil {
		return e, fmt.Errorf("storage: %s entry data: %w", e.Type, err)
	}
	if !e.Time.IsZero() {
		e.Time = Timestamp(e.Time)
	}
	return e, nil
}

// CheckStoredEntry checks an entry read back from a store and returns a
// [*CorruptEntryError] when it cannot be used: unknown type, a schema version
// newer than [EntrySchemaVersion], or (when checkData) data that is not JSON.
// A store whose column only holds JSON (Postgres jsonb) passes false rather
// than parse every entry again.
func CheckStoredEntry(conversationID string, e Entry, schemaVersion int, checkData bool) error {
	var err error
	switch {
	case schemaVersion > EntrySchemaVersion:
		err = fmt.Errorf("schema version %d is newer than %d", schemaVersion, EntrySchemaVersion)
	case schemaVersion < 1:
		err = fmt.Errorf("schema version %d", schemaVersion)
	case !e.Type.Valid():
		err = fmt.Errorf("unknown entry type %q", e.Type)
	case checkData:
		if jerr := CheckJSON(e.Data); jerr != nil {
			err = fmt.Errorf("data is not JSON a store holds: %v", jerr)
		}
	}
	if err != nil {
		return &CorruptEntryError{ConversationID: conversationID, Seq: e.Seq, Err: err}
	}
	return nil
}

// Timestamp returns t as stores keep it: UTC, truncated to microseconds (the
// precision of a Postgres timestamptz), so what Append returns equals what
// Load reads.
func Timestamp(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}
