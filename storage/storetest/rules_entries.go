package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

func ruleAppendOrder(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	c, ok := r.claim(sid, r.conv(sid, "order"))
	if !ok {
		return
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
	first := []storage.Entry{
		entry(storage.EntryRunStart, `{"mode":"default"}`),
		entry(storage.EntryInput, `{"text":"hello","n":[1,2,3]}`),
		{Type: storage.EntryResponse, RunID: "run-1", Agent: "support", Author: "assistant", Time: at, Data: json.RawMessage(`{"text":"hi"}`)},
	}
	got1, err := s.Append(ctx, c, first...)
	if !r.ok(err, "Append of three entries") {
		return
	}
	want := make([]storage.Entry, 0, 5)
	for i, e := range first {
		e.Seq = int64(i + 1)
		want = append(want, e)
	}
	if !r.sameEntries("Append's result", got1, want) {
		return
	}
	for _, e := range got1 {
		r.truef(!e.Time.IsZero(), "Append left entry %d without a time", e.Seq)
	}

	// A non-zero Seq must be the next one.
	_, err = s.Append(ctx, c, storage.Entry{Seq: 7, Type: storage.EntryToolResults, Data: json.RawMessage(`[]`)})
	r.is(err, storage.ErrConflict, "Append with a sequence number that is not the next")
	more := []storage.Entry{
		{Seq: 4, Type: storage.EntryToolResults, RunID: "run-1", Data: json.RawMessage(`[{"id":"c1","result":"ok"}]`)},
		{Type: storage.EntryRunEnd, RunID: "run-1", Data: nil},
	}
	got2, err := s.Append(ctx, c, more...)
	if !r.ok(err, "Append with the next sequence number") {
		return
	}
	more[0].Seq, more[1].Seq = 4, 5
	more[1].Data = json.RawMessage("null")
	want = append(append(want[:0:0], got1...), more...)
	if !r.sameEntries("second Append's result", got2, more) {
		return
	}

	all, err := s.LoadAll(ctx, sid, c.ConversationID)
	if !r.ok(err, "LoadAll") {
		return
	}
	r.sameEntries("LoadAll", all, want)
	for i := range all {
		if i < len(got1) {
			r.truef(all[i].Time.Equal(got1[i].Time), "LoadAll: entry %d time %v, Append returned %v", i+1, all[i].Time, got1[i].Time)
		}
	}
	loaded, err := s.Load(ctx, sid, c.ConversationID)
	if r.ok(err, "Load without a summary") {
		r.sameEntries("Load without a summary", loaded, want)
	}
	empty, err := s.Append(ctx, c)
	r.ok(err, "Append of no entries")
	r.truef(len(empty) == 0, "Append of no entries returned %d", len(empty))
}

func ruleAppendAtomic(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	c, ok := r.claim(sid, r.conv(sid, "atomic"))
	if !ok {
		return
	}
	if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{"n":1}`)); !r.ok(err, "Append") {
		return
	}
	_, err := s.Append(ctx, c, entry(storage.EntryResponse, `{"n":2}`), entry("bogus", `{}`))
	r.is(err, storage.ErrInvalid, "Append of a good and a bad entry")
	_, err = s.Append(ctx, c, entry(storage.EntryResponse, `{"n":2}`), storage.Entry{Seq: 9, Type: storage.EntryResponse})
	r.is(err, storage.ErrConflict, "Append of a good entry and one with a wrong sequence number")
	all, err := s.LoadAll(ctx, sid, c.ConversationID)
	if r.ok(err, "LoadAll") {
		r.truef(len(all) == 1, "a failed Append stored %d entries", len(all)-1)
	}
}

func ruleLoadSinceSummary(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	c, ok := r.claim(sid, r.conv(sid, "summary"))
	if !ok {
		return
	}
	in := []storage.Entry{
		entry(storage.EntryInput, `{"n":1}`),
		entry(storage.EntrySummary, `{"n":2}`),
		entry(storage.EntryResponse, `{"n":3}`),
	}
	if _, err := s.Append(ctx, c, in...); !r.ok(err, "Append") {
		return
	}
	got, err := s.Load(ctx, sid, c.ConversationID)
	if !r.ok(err, "Load") || !r.truef(len(got) == 2 && got[0].Seq == 2, "Load after one summary: %d entries from %v, want 2 from seq 2", len(got), seqs(got)) {
		return
	}
	// Two summaries in one Append: the later one counts.
	if _, err := s.Append(ctx, c, entry(storage.EntrySummary, `{"n":4}`), entry(storage.EntryInput, `{"n":5}`), entry(storage.EntrySummary, `{"n":6}`)); !r.ok(err, "Append") {
		return
	}
	got, err = s.Load(ctx, sid, c.ConversationID)
	if r.ok(err, "Load") {
		r.truef(len(got) == 1 && got[0].Seq == 6, "Load after two summaries in one Append: seqs %v, want [6]", seqs(got))
	}
	if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{"n":7}`)); !r.ok(err, "Append") {
		return
	}
	got, err = s.Load(ctx, sid, c.ConversationID)
	if r.ok(err, "Load") {
		r.truef(len(got) == 2 && got[0].Seq == 6 && got[1].Seq == 7, "Load: seqs %v, want [6 7]", seqs(got))
	}
	all, err := s.LoadAll(ctx, sid, c.ConversationID)
	if r.ok(err, "LoadAll") {
		r.truef(len(all) == 7, "LoadAll: %d entries, want 7", len(all))
	}
}

func seqs(es []storage.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

func ruleNotFound(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "never")
	_, err := s.Load(ctx, sid, id)
	r.is(err, storage.ErrNotFound, "Load of an unknown conversation")
	_, err = s.LoadAll(ctx, sid, id)
	r.is(err, storage.ErrNotFound, "LoadAll of an unknown conversation")
	r.is(s.Delete(ctx, sid, id), storage.ErrNotFound, "Delete of an unknown conversation")

	// A claim alone does not make a conversation.
	c, ok := r.claim(sid, r.conv(sid, "claimed"))
	if !ok {
		return
	}
	_, err = s.Load(ctx, sid, c.ConversationID)
	r.is(err, storage.ErrNotFound, "Load of a conversation claimed but never written")
	list, err := s.List(ctx, sid, storage.ListOptions{})
	if r.ok(err, "List") {
		r.truef(len(list) == 0, "List shows %d conversations without entries", len(list))
	}
	r.ok(s.Release(ctx, c), "Release")
}

func ruleDelete(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "doomed")
	keep := r.conv(sid, "kept")
	c, ok := r.claim(sid, id)
	if !ok {
		return
	}
	ck, ok := r.claim(sid, keep)
	if !ok {
		return
	}
	if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`), entry(storage.EntrySummary, `{}`)); !r.ok(err, "Append") {
		return
	}
	if _, err := s.Append(ctx, ck, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
		return
	}
	if !r.ok(s.Delete(ctx, sid, id), "Delete") {
		return
	}
	_, err := s.LoadAll(ctx, sid, id)
	r.is(err, storage.ErrNotFound, "LoadAll after Delete")
	_, err = s.Append(ctx, c, entry(storage.EntryInput, `{}`))
	r.is(err, storage.ErrClaimLost, "Append under a claim of a deleted conversation")
	list, err := s.List(ctx, sid, storage.ListOptions{})
	if r.ok(err, "List") {
		r.truef(len(list) == 1 && list[0].ConversationID == keep, "List after Delete: %v, want only %q", ids(list), keep)
	}
	// The id may be used again, from sequence 1.
	c2, ok := r.claim(sid, id)
	if !ok {
		return
	}
	got, err := s.Append(ctx, c2, entry(storage.EntryInput, `{}`))
	if r.ok(err, "Append after Delete") {
		r.truef(len(got) == 1 && got[0].Seq == 1, "Append after Delete: seq %v, want [1]", seqs(got))
	}
	got, err = s.Load(ctx, sid, id)
	if r.ok(err, "Load after Delete and Append") {
		r.truef(len(got) == 1, "Load after Delete shows %d entries, want 1 (the summary before Delete must not count)", len(got))
	}
}

func ids(list []storage.ConversationInfo) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.ConversationID
	}
	return out
}

func ruleListPaging(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	claims := map[string]storage.Claim{}
	for i := 1; i <= 5; i++ {
		id := r.conv(sid, fmt.Sprintf("c%d", i))
		c, ok := r.claim(sid, id)
		if !ok {
			return
		}
		claims[id] = c
		if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
			return
		}
	}
	var pages [][]string
	after := ""
	for range 5 {
		page, err := s.List(ctx, sid, storage.ListOptions{Limit: 2, After: after})
		if !r.ok(err, "List") {
			return
		}
		if len(page) == 0 {
			break
		}
		pages = append(pages, ids(page))
		after = page[len(page)-1].Cursor
	}
	got := fmt.Sprint(pages)
	r.truef(got == "[[c5 c4] [c3 c2] [c1]]", "List pages of 2: %s, want [[c5 c4] [c3 c2] [c1]]", got)

	if _, err := s.Append(ctx, claims["c2"], entry(storage.EntryResponse, `{}`), entry(storage.EntryRunEnd, `{}`)); !r.ok(err, "Append") {
		return
	}
	page, err := s.List(ctx, sid, storage.ListOptions{})
	if !r.ok(err, "List") {
		return
	}
	r.truef(fmt.Sprint(ids(page)) == "[c2 c5 c4 c3 c1]", "List after writing to c2: %v, want [c2 c5 c4 c3 c1]", ids(page))
	if len(page) > 0 {
		r.truef(page[0].LastSeq == 3, "List: c2's LastSeq %d, want 3", page[0].LastSeq)
		r.truef(!page[0].CreatedAt.IsZero() && !page[0].UpdatedAt.Before(page[0].CreatedAt),
			"List: c2 created %v, updated %v", page[0].CreatedAt, page[0].UpdatedAt)
	}
}

func ruleTenancy(r *rec) {
	s, ctx := r.s, r.ctx
	a, b := r.tenant("a"), r.tenant("b")
	kind := r.kind(a, "agent.Support")
	r.kind(b, kind)
	id := r.conv(a, "shared-id")
	r.conv(b, id)

	if _, err := s.PutSettings(ctx, storage.Document{SettingsID: a, Kind: kind, SchemaVersion: 1, Data: json.RawMessage(`{"secret":"a"}`)}, 0); !r.ok(err, "PutSettings for a") {
		return
	}
	_, err := s.GetSettings(ctx, b, kind)
	r.is(err, storage.ErrNotFound, "GetSettings of b for a's kind")
	_, err = s.PutSettings(ctx, storage.Document{SettingsID: b, Kind: kind, SchemaVersion: 1, Data: json.RawMessage(`{"secret":"b"}`)}, 1)
	r.is(err, storage.ErrConflict, "PutSettings of b expecting a's revision")
	r.is(s.DeleteSettings(ctx, b, kind), storage.ErrNotFound, "DeleteSettings of b for a's kind")

	ca, ok := r.claim(a, id)
	if !ok {
		return
	}
	if _, err := s.Append(ctx, ca, entry(storage.EntryInput, `{"secret":"a"}`)); !r.ok(err, "Append for a") {
		return
	}
	_, err = s.Load(ctx, b, id)
	r.is(err, storage.ErrNotFound, "Load of b for a's conversation id")
	_, err = s.LoadAll(ctx, b, id)
	r.is(err, storage.ErrNotFound, "LoadAll of b for a's conversation id")
	list, err := s.List(ctx, b, storage.ListOptions{})
	if r.ok(err, "List of b") {
		r.truef(len(list) == 0, "List of b shows a's conversations: %v", ids(list))
	}
	r.is(s.Delete(ctx, b, id), storage.ErrNotFound, "Delete of b for a's conversation id")

	// a's claim belongs to a: b may claim the same id, and a's claim
	// cannot write as b.
	cb, err := s.Claim(ctx, b, id, "other", time.Minute)
	if !r.ok(err, "Claim of b for the id a holds") {
		return
	}
	forged := ca
	forged.SettingsID = b
	_, err = s.Append(ctx, forged, entry(storage.EntryInput, `{}`))
	r.is(err, storage.ErrClaimLost, "Append with a's claim token under b")
	if _, err := s.Append(ctx, cb, entry(storage.EntryInput, `{"secret":"b"}`), entry(storage.EntryResponse, `{}`)); !r.ok(err, "Append for b") {
		return
	}
	got, err := s.LoadAll(ctx, a, id)
	if r.ok(err, "LoadAll of a") {
		r.truef(len(got) == 1 && jsonEqual(got[0].Data, []byte(`{"secret":"a"}`)), "LoadAll of a shows %d entries, want a's one", len(got))
	}
	got, err = s.LoadAll(ctx, b, id)
	if r.ok(err, "LoadAll of b") {
		r.truef(len(got) == 2 && got[0].Seq == 1, "LoadAll of b: seqs %v, want [1 2]", seqs(got))
	}
	if r.ok(s.Delete(ctx, b, id), "Delete of b") {
		_, err = s.LoadAll(ctx, a, id)
		r.ok(err, "LoadAll of a after b's Delete")
	}
}

// ruleCorruptEntries runs when the store can write broken entries (see
// [Corrupter]); a store that cannot express a kind of damage skips it.
func ruleCorruptEntries(r *rec) {
	cs, ok := r.s.(Corrupter)
	if !ok {
		return
	}
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	for _, kind := range []Corruption{CorruptData, CorruptType, CorruptFutureVersion} {
		id := r.conv(sid, "corrupt-"+kind.String())
		c, ok := r.claim(sid, id)
		if !ok {
			return
		}
		if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
			return
		}
		err := cs.Corrupt(ctx, sid, id, kind)
		if errors.Is(err, errors.ErrUnsupported) {
			continue
		}
		if !r.ok(err, "Corrupt "+kind.String()) {
			return
		}
		for name, load := range map[string]func() ([]storage.Entry, error){
			"Load":    func() ([]storage.Entry, error) { return s.Load(ctx, sid, id) },
			"LoadAll": func() ([]storage.Entry, error) { return s.LoadAll(ctx, sid, id) },
		} {
			_, err := load()
			var ce *storage.CorruptEntryError
			if r.truef(errors.As(err, &ce), "%s of an entry with %s: got %v, want a *storage.CorruptEntryError", name, kind, err) {
				r.truef(ce.ConversationID == id && ce.Seq == 2, "%s: corrupt entry error names %q seq %d, want %q seq 2", name, ce.ConversationID, ce.Seq, id)
			}
		}
	}
}
