package postgres

import (
	"testing"

	"github.com/matryer/is"
)

func TestPayload(t *testing.T) {
	is := is.New(t)
	p := string(payloadHeader(kindEvent, "acme", "c:42")) + `17`
	is.Equal(p, `e4:acme4:c:4217`)
	kind, key, body, err := parsePayload(p)
	is.NoErr(err)
	is.Equal(kind, byte(kindEvent))
	is.Equal(key.SettingsID, "acme")
	is.Equal(key.ConversationID, "c:42")
	is.Equal(body, `17`)
	for _, bad := range []string{"", "t", "t9:a1:b", "tx:a", "t-1:a1:b"} {
		_, _, _, err := parsePayload(bad)
		is.True(err != nil) // malformed payloads are refused
	}
}

func FuzzPayload(f *testing.F) {
	f.Add("acme", "c-1", "body", byte('t'))
	f.Add("", "", "", byte('p'))
	f.Add("1:2", "3:", ":::", byte('b'))
	f.Fuzz(func(t *testing.T, sid, cid, body string, kind byte) {
		p := string(payloadHeader(kind, sid, cid)) + body
		k, key, got, err := parsePayload(p)
		if err != nil || k != kind || key.SettingsID != sid || key.ConversationID != cid || got != body {
			t.Fatalf("round trip of %q/%q/%q: %q %+v %q %v", sid, cid, body, k, key, got, err)
		}
		// Any string parses or is refused, never panics.
		_, _, _, _ = parsePayload(body)
	})
}
