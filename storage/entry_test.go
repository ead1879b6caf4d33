package storage_test

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

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
	is.True(errors.Is(storeutil.CheckTTL(0), storage.ErrInvalid))
	is.True(errors.Is(storeutil.CheckClaim(storage.Claim{SettingsID: "t", ConversationID: "c"}), storage.ErrInvalid))
	_, err := storeutil.PrepareDocument(storage.Document{SettingsID: "t", Kind: "k"})
	is.True(errors.Is(err, storage.ErrInvalid)) // a document needs a JSON value
}
