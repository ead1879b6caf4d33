package cursor

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

func TestRoundTrip(t *testing.T) {
	is := is.New(t)
	at := time.Date(2026, 11, 29, 23, 0, 0, 123456000, time.UTC)
	for _, id := range []string{"c", "a:b:c", "ünïcödé", " "} {
		gotAt, gotID, err := Decode(Encode(at, id))
		is.NoErr(err)
		is.True(gotAt.Equal(at))
		is.Equal(gotID, id)
	}
	for _, bad := range []string{"", "12", "x:id", "12:", ":id"} {
		_, _, err := Decode(bad)
		is.True(errors.Is(err, storage.ErrInvalid)) // malformed cursors are invalid arguments
	}
	is.True(Token() != Token())
	is.Equal(len(Token()), 32)
}

func FuzzDecode(f *testing.F) {
	f.Add("1764457200123456:conv-1")
	f.Add("-5:x")
	f.Add("::")
	f.Fuzz(func(t *testing.T, s string) {
		at, id, err := Decode(s)
		if err != nil {
			return
		}
		// What decodes re-encodes to a cursor that decodes the same.
		at2, id2, err := Decode(Encode(at, id))
		if err != nil || !at2.Equal(at) || id2 != id {
			t.Fatalf("%q: round trip gave %v %q %v", s, at2, id2, err)
		}
	})
}
