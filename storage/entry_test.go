package storage_test

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

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
