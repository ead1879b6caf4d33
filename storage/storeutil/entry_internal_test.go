package storeutil

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

func TestEntryTypes(t *testing.T) {
	is := is.New(t)
	touching := map[storage.EntryType]bool{
		storage.EntryInput: true, storage.EntryResponse: false, storage.EntryToolResults: false,
		storage.EntryApprovalRequests: false, storage.EntryApprovalAnswers: true, storage.EntrySteering: true,
		storage.EntryRunStart: true, storage.EntryRunEnd: true, storage.EntrySummary: true,
	}
	for typ, touches := range touching {
		is.True(validEntryType(typ))
		is.Equal(Touches(typ), touches)
	}
	is.True(!validEntryType(""))
}
