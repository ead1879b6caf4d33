package storage_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

func TestPrepareEntry(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CET", 3600))
	tests := []struct {
		name    string
		in      storage.Entry
		want    storage.Entry
		wantErr error
	}{
		{"empty data is null", storage.Entry{Type: storage.EntryInput}, storage.Entry{Type: storage.EntryInput, Data: json.RawMessage("null")}, nil},
		{"time to microseconds in UTC", storage.Entry{Type: storage.EntryRunEnd, Time: at, Data: json.RawMessage(`{}`)},
			storage.Entry{Type: storage.EntryRunEnd, Time: time.Date(2026, 1, 2, 2, 4, 5, 123456000, time.UTC), Data: json.RawMessage(`{}`)}, nil},
		{"unknown type", storage.Entry{Type: "chat"}, storage.Entry{}, storage.ErrInvalid},
		{"empty type", storage.Entry{}, storage.Entry{}, storage.ErrInvalid},
		{"not JSON", storage.Entry{Type: storage.EntryInput, Data: json.RawMessage(`{"a"}`)}, storage.Entry{}, storage.ErrInvalid},
		{"negative seq", storage.Entry{Seq: -1, Type: storage.EntryInput}, storage.Entry{}, storage.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := storage.PrepareEntry(tt.in)
			if tt.wantErr != nil {
				is.True(errors.Is(err, tt.wantErr))
				return
			}
			is.NoErr(err)
			is.Equal(got.Type, tt.want.Type)
			is.Equal(string(got.Data), string(tt.want.Data))
			is.True(got.Time.Equal(tt.want.Time))
			is.Equal(got.Time.Location(), tt.want.Time.Location())
		})
	}
}

func TestCheckStoredEntry(t *testing.T) {
	tests := []struct {
		name      string
		e         storage.Entry
		version   int
		checkData bool
		corrupt   bool
	}{
		{"good", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{}`)}, 1, true, false},
		{"current version", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{}`)}, storage.EntrySchemaVersion, true, false},
		{"future version", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{}`)}, storage.EntrySchemaVersion + 1, true, true},
		{"no version", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{}`)}, 0, true, true},
		{"unknown type", storage.Entry{Seq: 3, Type: "x", Data: json.RawMessage(`{}`)}, 1, true, true},
		{"bad data", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{`)}, 1, true, true},
		{"bad data unchecked", storage.Entry{Seq: 3, Type: storage.EntryResponse, Data: json.RawMessage(`{`)}, 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := storage.CheckStoredEntry("c-1", tt.e, tt.version, tt.checkData)
			if !tt.corrupt {
				is.NoErr(err)
				return
			}
			var ce *storage.CorruptEntryError
			is.True(errors.As(err, &ce))
			is.Equal(ce.ConversationID, "c-1")
			is.Equal(ce.Seq, int64(3))
			is.True(ce.Unwrap() != nil)
		})
	}
}

func TestEntryTypes(t *testing.T) {
	is := is.New(t)
	touching := map[storage.EntryType]bool{
		storage.EntryInput: true, storage.EntryResponse: false, storage.EntryToolResults: false,
		storage.EntryApprovalRequests: false, storage.EntryApprovalAnswers: true, storage.EntrySteering: true,
		storage.EntryRunStart: true, storage.EntryRunEnd: true, storage.EntrySummary: true,
	}
	for typ, touches := range touching {
		is.True(typ.Valid())
		is.Equal(typ.Touches(), touches)
	}
	is.True(!storage.EntryType("").Valid())
}

func TestPageLimit(t *testing.T) {
	is := is.New(t)
	for _, tt := range []struct{ limit, want int }{{0, 50}, {-3, 50}, {1, 1}, {1000, 1000}, {5000, 1000}} {
		is.Equal(storage.ListOptions{Limit: tt.limit}.PageLimit(), tt.want)
	}
}

func TestCheckIDs(t *testing.T) {
	is := is.New(t)
	is.NoErr(storage.CheckIDs("t", "c"))
	is.True(errors.Is(storage.CheckIDs(""), storage.ErrInvalid))
	is.True(errors.Is(storage.CheckIDs("t", ""), storage.ErrInvalid))
	is.True(errors.Is(storage.CheckTTL(0), storage.ErrInvalid))
	is.True(errors.Is(storage.CheckClaim(storage.Claim{SettingsID: "t", ConversationID: "c"}), storage.ErrInvalid))
	_, err := storage.PrepareDocument(storage.Document{SettingsID: "t", Kind: "k"})
	is.True(errors.Is(err, storage.ErrInvalid)) // a document needs a JSON value
}
