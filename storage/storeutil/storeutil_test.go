package storeutil_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
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
			got, err := storeutil.PrepareEntry(tt.in)
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
			err := storeutil.CheckStoredEntry("c-1", tt.e, tt.version, tt.checkData)
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

func TestCheckStoredDocument(t *testing.T) {
	is := is.New(t)
	ok := storage.Document{SettingsID: "t", Kind: "k", Revision: 1, Data: json.RawMessage(`{}`)}
	is.NoErr(storeutil.CheckStoredDocument(ok, true))
	for _, bad := range []storage.Document{
		{SettingsID: "t", Kind: "k", Revision: 0, Data: json.RawMessage(`{}`)},
		{SettingsID: "t", Kind: "k", Revision: 1, SchemaVersion: -1, Data: json.RawMessage(`{}`)},
		{SettingsID: "t", Kind: "k", Revision: 1, Data: json.RawMessage(`{"a\u0000":1}`)},
	} {
		var ce *storage.CorruptSettingsError
		is.True(errors.As(storeutil.CheckStoredDocument(bad, true), &ce))
		is.Equal(ce.Kind, "k")
	}
	is.NoErr(storeutil.CheckStoredDocument(storage.Document{Revision: 1, Data: json.RawMessage(`{`)}, false)) // data not checked
}
