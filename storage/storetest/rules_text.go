package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// SettingsCorrupter is implemented by a store (usually a test wrapper around
// it) that can damage a stored settings document behind the API's back, so
// the suite can check that GetSettings reports a
// *storage.CorruptSettingsError instead of misreading it.
type SettingsCorrupter interface {
	// CorruptSettings sets the stored revision of an existing document to 0,
	// which no PutSettings ever writes.
	CorruptSettings(ctx context.Context, settingsID, kind string) error
}

// BadData lists JSON that no store accepts as entry or settings data, with
// why: what Postgres jsonb refuses, so that the memory store refuses it too.
var BadData = []struct{ Name, Data string }{
	{"a \\u0000 escape", `{"text":"a\u0000b"}`},
	{"a \\u0000 escape in a key", `{"a\u0000":1}`},
	{"a lone high surrogate escape", `"\ud800"`},
	{"a high surrogate escape before text", `"\ud800x"`},
	{"a high surrogate escape before another escape", `"\ud800\u0041"`},
	{"two high surrogate escapes", `"\ud800\ud800"`},
	{"a lone low surrogate escape", `"\udc00"`},
	{"a low surrogate escape before a high one", `"\udc00\ud800"`},
	{"a raw NUL in a string", "\"a\x00b\""},
	{"a raw NUL outside a string", "{}\x00"},
	{"an invalid UTF-8 byte", "\"a\xffb\""},
	{"a truncated UTF-8 sequence", "\"\xe2\x82\""},
	{"an overlong UTF-8 encoding", "\"\xc0\x80\""},
	{"a surrogate encoded in UTF-8", "\"\xed\xa0\x80\""},
	{"a control character in a string", "\"a\tb\""},
	{"nested one level deeper than MaxJSONDepth", nested(storage.MaxJSONDepth + 1)},
	{"a number with too many digits before the point", "1e131072"},
	{"a number with too many digits after the point", "1e-16384"},
	{"a zero with too many digits after the point", "0.0000e-16380"},
	{"a number whose exponent is out of range", "0e1073741823"},
	{"two values", `{} {}`},
	{"a truncated object", `{"a":`},
}

// GoodData lists JSON at the edges of what every store accepts; each must be
// stored and read back with the same meaning.
var GoodData = []struct{ Name, Data string }{
	{"a surrogate pair escape", `{"text":"\ud83d\ude00"}`},
	{"a surrogate pair escape in upper case", `"\uD83D\uDE00"`},
	{"raw UTF-8 of four bytes", `"😀 é"`},
	{"an escaped backslash before u0000", `"\\u0000"`},
	{"U+FFFD", `"\ufffd"`},
	{"nested MaxJSONDepth levels", nested(storage.MaxJSONDepth)},
	{"the most digits before the point", "1e131071"},
	{"the most digits after the point", "1e-16383"},
	{"a zero with a large exponent", "0e200000"},
	{"minus zero", "-0"},
}

// nested returns an array nested depth levels.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// padID returns id padded with two-byte characters and an ASCII letter to
// exactly n bytes.
func padID(id string, n int) string {
	for len(id)+2 <= n {
		id += "é"
	}
	if len(id) < n {
		id += "x"
	}
	return id
}

func ruleTextAndIDs(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	good := r.conv(sid, "c")

	badIDs := []struct{ name, id string }{
		{"with a NUL byte", "id\x00"},
		{"with invalid UTF-8", "id\xff"},
		{"of MaxIDLength+1 bytes", padID(r.prefix, storage.MaxIDLength+1)},
	}
	for _, b := range badIDs {
		_, err := s.GetSettings(ctx, b.id, "k")
		r.is(err, storage.ErrInvalid, "GetSettings with a settings id "+b.name)
		_, err = s.GetSettings(ctx, sid, b.id)
		r.is(err, storage.ErrInvalid, "GetSettings with a kind "+b.name)
		_, err = s.PutSettings(ctx, storage.Document{SettingsID: sid, Kind: b.id, Data: json.RawMessage(`{}`)}, 0)
		r.is(err, storage.ErrInvalid, "PutSettings with a kind "+b.name)
		r.is(s.DeleteSettings(ctx, b.id, "k"), storage.ErrInvalid, "DeleteSettings with a settings id "+b.name)
		_, err = s.Claim(ctx, b.id, good, "o", time.Minute)
		r.is(err, storage.ErrInvalid, "Claim with a settings id "+b.name)
		_, err = s.Claim(ctx, sid, b.id, "o", time.Minute)
		r.is(err, storage.ErrInvalid, "Claim with a conversation id "+b.name)
		_, err = s.Load(ctx, sid, b.id)
		r.is(err, storage.ErrInvalid, "Load with a conversation id "+b.name)
		_, err = s.LoadAll(ctx, b.id, good)
		r.is(err, storage.ErrInvalid, "LoadAll with a settings id "+b.name)
		_, err = s.List(ctx, b.id, storage.ListOptions{})
		r.is(err, storage.ErrInvalid, "List with a settings id "+b.name)
		_, err = s.List(ctx, sid, storage.ListOptions{After: "1:" + b.id})
		r.is(err, storage.ErrInvalid, "List after a cursor whose id is "+b.name)
		r.is(s.Delete(ctx, sid, b.id), storage.ErrInvalid, "Delete with a conversation id "+b.name)
		_, err = s.EventRange(ctx, sid, b.id)
		r.is(err, storage.ErrInvalid, "EventRange with a conversation id "+b.name)
		if relay, ok := r.relay(); ok {
			r.is(relay.Publish(ctx, sid, b.id, []storage.Event{{ID: 1}}), storage.ErrInvalid, "Publish with a conversation id "+b.name)
		}
		r.is(s.Steer(ctx, sid, b.id, []byte(`{}`)), storage.ErrInvalid, "Steer with a conversation id "+b.name)
	}
	_, err := s.List(ctx, sid, storage.ListOptions{After: "-9223372036854775807:c"})
	r.is(err, storage.ErrInvalid, "List after a cursor of a time before 4713 BC")
	_, err = s.Claim(ctx, sid, good, "owner\x00", time.Minute)
	r.is(err, storage.ErrInvalid, "Claim with an owner with a NUL byte")
	_, err = s.Claim(ctx, sid, good, "owner\xff", time.Minute)
	r.is(err, storage.ErrInvalid, "Claim with an owner with invalid UTF-8")

	// The longest ids are held, in every column they go to.
	longSID := padID(r.tenant("long"), storage.MaxIDLength)
	longKind := r.kind(longSID, padID("kind", storage.MaxIDLength))
	if _, err := s.PutSettings(ctx, storage.Document{SettingsID: longSID, Kind: longKind, Data: json.RawMessage(`{}`)}, 0); r.ok(err, "PutSettings with ids of MaxIDLength bytes") {
		_, err := s.GetSettings(ctx, longSID, longKind)
		r.ok(err, "GetSettings with ids of MaxIDLength bytes")
	}
	longConv := r.conv(longSID, padID("conv", storage.MaxIDLength))
	if c, ok := r.claim(longSID, longConv); ok {
		_, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`))
		r.ok(err, "Append to a conversation with ids of MaxIDLength bytes")
		all, err := s.LoadAll(ctx, longSID, longConv)
		if r.ok(err, "LoadAll with ids of MaxIDLength bytes") {
			r.truef(len(all) == 1, "LoadAll with ids of MaxIDLength bytes: %d entries, want 1", len(all))
		}
		page, err := s.List(ctx, longSID, storage.ListOptions{})
		if r.ok(err, "List with ids of MaxIDLength bytes") && r.truef(len(page) == 1 && page[0].ConversationID == longConv,
			"List with ids of MaxIDLength bytes: %d conversations", len(page)) {
			_, err := s.List(ctx, longSID, storage.ListOptions{After: page[0].Cursor})
			r.ok(err, "List after a cursor with ids of MaxIDLength bytes")
		}
	}

	c, ok := r.claim(sid, good)
	if !ok {
		return
	}
	for _, b := range []struct{ name, runID, agent, author string }{
		{"a run id with a NUL byte", "run\x00", "a", "a"},
		{"an agent with invalid UTF-8", "run", "a\xff", "a"},
		{"an author with a NUL byte", "run", "a", "\x00"},
	} {
		_, err := s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, RunID: b.runID, Agent: b.agent, Author: b.author})
		r.is(err, storage.ErrInvalid, "Append of an entry with "+b.name)
	}

	kind := r.kind(sid, "k")
	for _, b := range BadData {
		_, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`), entry(storage.EntryResponse, b.Data))
		r.is(err, storage.ErrInvalid, "Append of data with "+b.Name)
		_, err = s.PutSettings(ctx, storage.Document{SettingsID: sid, Kind: kind, Data: json.RawMessage(b.Data)}, 0)
		r.is(err, storage.ErrInvalid, "PutSettings of data with "+b.Name)
	}
	all, err := s.LoadAll(ctx, sid, good)
	if !errors.Is(err, storage.ErrNotFound) {
		r.truef(err == nil && len(all) == 0, "LoadAll after refused appends: %d entries, error %v; want none", len(all), err)
	}
	_, err = s.GetSettings(ctx, sid, kind)
	r.is(err, storage.ErrNotFound, "GetSettings after refused puts")

	var rev int64
	for _, g := range GoodData {
		got, err := s.Append(ctx, c, entry(storage.EntryResponse, g.Data))
		if !r.ok(err, "Append of data with "+g.Name) {
			continue
		}
		all, err := s.LoadAll(ctx, sid, good)
		if r.ok(err, "LoadAll after data with "+g.Name) && len(all) > 0 && len(got) == 1 {
			last := all[len(all)-1]
			r.truef(last.Seq == got[0].Seq, "LoadAll after data with %s: last entry %d, want %d", g.Name, last.Seq, got[0].Seq)
			r.truef(sameJSON(last.Data, []byte(g.Data)), "data with %s read back as %.80s", g.Name, last.Data)
		}
		doc, err := s.PutSettings(ctx, storage.Document{SettingsID: sid, Kind: kind, Data: json.RawMessage(g.Data)}, rev)
		if !r.ok(err, "PutSettings of data with "+g.Name) {
			continue
		}
		rev = doc.Revision
		read, err := s.GetSettings(ctx, sid, kind)
		if r.ok(err, "GetSettings of data with "+g.Name) {
			r.truef(sameJSON(read.Data, []byte(g.Data)), "settings with %s read back as %.80s", g.Name, read.Data)
		}
	}
}

// sameJSON is jsonEqual, but compares numbers by their decimal value (Postgres
// writes 1e131071 out in full, and -0 as 0) and values nested deeper than
// encoding/json reads by their bytes without spaces.
func sameJSON(a, b []byte) bool {
	if jsonEqual(a, b) {
		return true
	}
	var na, nb json.Number
	if json.Unmarshal(a, &na) == nil && json.Unmarshal(b, &nb) == nil {
		return numberEqual(string(na), string(nb))
	}
	strip := func(p []byte) string { return strings.Join(strings.Fields(string(p)), "") }
	return storage.CheckJSON(a) == nil && strip(a) == strip(b) && strings.Trim(strip(b), "[]") == ""
}

// numberEqual compares two decimal numbers by value, for the rule's few
// numbers whose float64 is infinite or zero.
func numberEqual(a, b string) bool {
	norm := func(s string) string {
		mant, exp := s, 0
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			mant = s[:i]
			_, _ = fmt.Sscan(s[i+1:], &exp)
		}
		neg := strings.HasPrefix(mant, "-")
		mant = strings.TrimPrefix(mant, "-")
		intPart, frac, _ := strings.Cut(mant, ".")
		digits := intPart + frac
		exp -= len(frac)
		trimmed := strings.TrimLeft(digits, "0")
		if trimmed == "" {
			return "0"
		}
		for strings.HasSuffix(trimmed, "0") {
			trimmed = trimmed[:len(trimmed)-1]
			exp++
		}
		sign := ""
		if neg {
			sign = "-"
		}
		return fmt.Sprintf("%s%se%d", sign, trimmed, exp)
	}
	return norm(a) == norm(b)
}

func ruleCorruptSettings(r *rec) {
	cs, ok := r.s.(SettingsCorrupter)
	if !ok {
		return
	}
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	kind := r.kind(sid, "k")
	if _, err := s.PutSettings(ctx, storage.Document{SettingsID: sid, Kind: kind, Data: json.RawMessage(`{}`)}, 0); !r.ok(err, "PutSettings") {
		return
	}
	if !r.ok(cs.CorruptSettings(ctx, sid, kind), "CorruptSettings") {
		return
	}
	_, err := s.GetSettings(ctx, sid, kind)
	var ce *storage.CorruptSettingsError
	if !errors.As(err, &ce) {
		r.failf("GetSettings of a corrupt document: got error %v, want a *storage.CorruptSettingsError", err)
		return
	}
	r.truef(ce.SettingsID == sid && ce.Kind == kind, "CorruptSettingsError names %q of %q, want %q of %q", ce.Kind, ce.SettingsID, kind, sid)
}
