package storeutil

import "github.com/typeshift-go/typeshift/storage"

// validEntryType reports whether t is one of the entry types of package storage.
func validEntryType(t storage.EntryType) bool {
	switch t {
	case storage.EntryInput, storage.EntryResponse, storage.EntryToolResults, storage.EntryApprovalRequests,
		storage.EntryApprovalAnswers, storage.EntrySteering, storage.EntryRunStart, storage.EntryRunEnd,
		storage.EntrySummary:
		return true
	}
	return false
}

// Touches reports whether appending an entry of type t moves its conversation's UpdatedAt, the order of List.
// Input, steering, the start and end of a run, approval answers and summaries do; the steps inside a run
// (responses, tool results, approval requests) do not, since a run that is going on began with an entry that did,
// and ends with one. This keeps the per-step write cheap: in Postgres it changes no indexed column.
func Touches(t storage.EntryType) bool {
	switch t {
	case storage.EntryResponse, storage.EntryToolResults, storage.EntryApprovalRequests:
		return false
	}
	return true
}
