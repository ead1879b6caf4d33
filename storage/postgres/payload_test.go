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
	entries, err := parseEvents(`4:acme4:c:4217,1:b3:c,,9,`)
	is.NoErr(err)
	is.Equal(entries, []eventsEntry{{"acme", "c:42", "17"}, {"b", "c,,", "9"}})
	for _, bad := range []string{"4:acme4:c:4217", "4:acme4:c:4217,x", "9:a1:b,"} {
		_, err := parseEvents(bad)
		is.True(err != nil) // malformed batches are refused
	}
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
		_, _ = parseEvents(body)
		entries, err := parseEvents(string(payloadHeader(kind, sid, cid)[1:]) + "7,")
		if err != nil || len(entries) != 1 || entries[0] != (eventsEntry{sid, cid, "7"}) {
			t.Fatalf("round trip of a batch naming %q/%q: %+v %v", sid, cid, entries, err)
		}
	})
}
