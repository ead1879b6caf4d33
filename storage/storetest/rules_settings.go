package storetest

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/storage"
)

func ruleInvalidArguments(r *rec) {
	s, ctx := r.s, r.ctx
	_, err := s.GetSettings(ctx, "", "k")
	r.is(err, storage.ErrInvalid, "GetSettings with an empty settings id")
	_, err = s.PutSettings(ctx, storage.Document{SettingsID: r.tenant("a"), Kind: r.kind(r.tenant("a"), "k"), Data: json.RawMessage("{")}, 0)
	r.is(err, storage.ErrInvalid, "PutSettings with data that is not JSON")
	_, err = s.Claim(ctx, "", "c", "o", 1)
	r.is(err, storage.ErrInvalid, "Claim with an empty settings id")
	_, err = s.Claim(ctx, r.tenant("a"), "", "o", 1)
	r.is(err, storage.ErrInvalid, "Claim with an empty conversation id")
	_, err = s.Claim(ctx, r.tenant("a"), r.conv(r.tenant("a"), "c"), "o", 0)
	r.is(err, storage.ErrInvalid, "Claim with a zero lease time")
	_, err = s.Load(ctx, r.tenant("a"), "")
	r.is(err, storage.ErrInvalid, "Load with an empty conversation id")
	_, err = s.List(ctx, "", storage.ListOptions{})
	r.is(err, storage.ErrInvalid, "List with an empty settings id")
	_, err = s.List(ctx, r.tenant("a"), storage.ListOptions{After: "not a cursor"})
	r.is(err, storage.ErrInvalid, "List with a malformed cursor")

	c, ok := r.claim(r.tenant("a"), r.conv(r.tenant("a"), "c"))
	if !ok {
		return
	}
	_, err = s.Append(ctx, c, storage.Entry{Type: "no_such_type", Data: json.RawMessage("{}")})
	r.is(err, storage.ErrInvalid, "Append of an unknown entry type")
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: json.RawMessage(`{"a":`)})
	r.is(err, storage.ErrInvalid, "Append of data that is not JSON")
	_, err = s.Append(ctx, storage.Claim{SettingsID: c.SettingsID, ConversationID: c.ConversationID}, entry(storage.EntryInput, "{}"))
	r.is(err, storage.ErrInvalid, "Append under a claim without a token")
}

func ruleSettingsCompareAndSet(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	kind := r.kind(sid, "agent.Support")

	_, err := s.GetSettings(ctx, sid, kind)
	if !r.is(err, storage.ErrNotFound, "GetSettings before any put") {
		return
	}
	doc := storage.Document{SettingsID: sid, Kind: kind, SchemaVersion: 3, Data: json.RawMessage(`{"model":"m1","temperature":0.5}`)}
	_, err = s.PutSettings(ctx, doc, 4)
	r.is(err, storage.ErrConflict, "PutSettings of a new document expecting revision 4")

	d1, err := s.PutSettings(ctx, doc, 0)
	if !r.ok(err, "PutSettings of a new document") {
		return
	}
	r.truef(d1.Revision == 1, "first PutSettings: revision %d, want 1", d1.Revision)
	r.truef(!d1.UpdatedAt.IsZero(), "first PutSettings: UpdatedAt not set")

	_, err = s.PutSettings(ctx, doc, 0)
	r.is(err, storage.ErrConflict, "PutSettings expecting a new document when one exists")

	doc.Data = json.RawMessage(`{"model":"m2"}`)
	doc.SchemaVersion = 4
	d2, err := s.PutSettings(ctx, doc, d1.Revision)
	if !r.ok(err, "PutSettings expecting the current revision") {
		return
	}
	r.truef(d2.Revision == 2, "second PutSettings: revision %d, want 2", d2.Revision)

	doc.Data = json.RawMessage(`{"model":"stale"}`)
	_, err = s.PutSettings(ctx, doc, d1.Revision)
	r.is(err, storage.ErrConflict, "PutSettings expecting a stale revision")

	got, err := s.GetSettings(ctx, sid, kind)
	if r.ok(err, "GetSettings") {
		r.truef(got.Revision == 2 && got.SchemaVersion == 4 && got.SettingsID == sid && got.Kind == kind,
			"GetSettings: revision %d schema %d id %q kind %q, want 2, 4, %q, %q",
			got.Revision, got.SchemaVersion, got.SettingsID, got.Kind, sid, kind)
		r.truef(jsonEqual(got.Data, []byte(`{"model":"m2"}`)), "GetSettings: data %s, want the last written", got.Data)
	}

	r.ok(s.DeleteSettings(ctx, sid, kind), "DeleteSettings")
	_, err = s.GetSettings(ctx, sid, kind)
	r.is(err, storage.ErrNotFound, "GetSettings after DeleteSettings")
	r.is(s.DeleteSettings(ctx, sid, kind), storage.ErrNotFound, "DeleteSettings of a deleted document")

	d3, err := s.PutSettings(ctx, doc, 0)
	if r.ok(err, "PutSettings after DeleteSettings") {
		r.truef(d3.Revision == 1, "PutSettings after DeleteSettings: revision %d, want 1", d3.Revision)
	}
}
