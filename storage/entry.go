package storage

import (
	"encoding/json"
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
