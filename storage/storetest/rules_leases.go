package storetest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// ruleRenewRuns checks RenewRuns: live claims of two tenants are renewed together;
// a released claim, an expired one, one with a forged token and one that names another tenant are lost and
// extend nothing; a malformed claim is invalid.
func ruleRenewRuns(r *rec) {
	lr := r.runs
	s, ctx := r.s, r.ctx
	a, b := r.tenant("a"), r.tenant("b")
	ca, ok1 := r.claim(a, r.conv(a, "kept"))
	cb, ok2 := r.claim(b, r.conv(b, "kept"))
	released, ok3 := r.claim(a, r.conv(a, "released"))
	const short = 300 * time.Millisecond
	sc, err := s.Claim(ctx, a, r.conv(a, "short"), "storetest", short)
	if !ok1 || !ok2 || !ok3 || !r.ok(err, "Claim with a short lease") || !r.ok(s.Release(ctx, released), "Release") {
		return
	}
	r.conv(b, "short")
	otherTenant := sc
	otherTenant.SettingsID = b // the same conversation id and token, under another tenant
	forged := sc
	forged.Token = "forged"
	invalid := storage.Claim{SettingsID: a, ConversationID: "kept"}
	cs := []storage.Claim{ca, released, otherTenant, cb, forged, invalid}
	got, err := lr.RenewRuns(ctx, cs, time.Hour)
	if !r.ok(err, "RenewRuns") || !r.truef(len(got) == len(cs), "RenewRuns of %d claims returned %d", len(cs), len(got)) {
		return
	}
	soon := time.Now().Add(30 * time.Minute)
	for i, c := range []storage.Claim{ca, cb} {
		g := got[i*3] // ca and cb are at 0 and 3
		if r.ok(g.Err, "RenewRuns of a live claim") {
			r.truef(g.Claim.Token == c.Token && g.Claim.SettingsID == c.SettingsID && g.Claim.ExpiresAt.After(soon),
				"RenewRuns for an hour returned %+v for %+v", g.Claim, c)
		}
	}
	r.is(got[1].Err, storage.ErrClaimLost, "RenewRuns of a released claim")
	r.is(got[2].Err, storage.ErrClaimLost, "RenewRuns of a claim naming another tenant")
	r.is(got[4].Err, storage.ErrClaimLost, "RenewRuns with a forged token")
	r.is(got[5].Err, storage.ErrInvalid, "RenewRuns of a claim without a token")

	// Neither the forged claim nor the other tenant's extended the short lease: it expires, and it is lost.
	var taken storage.Claim
	for i := range 50 {
		time.Sleep(short / 3)
		if taken, err = s.Claim(ctx, a, "short", "successor", time.Minute); err == nil {
			break
		}
		if i == 49 || !r.is(err, storage.ErrConversationBusy, "Claim while the short lease runs") {
			r.failf("the short lease was extended by claims that do not hold it: %v", err)
			return
		}
	}
	got, err = lr.RenewRuns(ctx, []storage.Claim{sc, ca}, time.Hour)
	if r.ok(err, "RenewRuns") && r.truef(len(got) == 2, "RenewRuns of 2 claims returned %d", len(got)) {
		r.is(got[0].Err, storage.ErrClaimLost, "RenewRuns of a lease taken over")
		r.ok(got[1].Err, "RenewRuns of a live claim beside a lost one")
	}
	_, err = s.Append(ctx, taken, entry(storage.EntryInput, `{}`))
	r.ok(err, "Append under the lease that took the expired one over")
	_, err = s.Append(ctx, ca, entry(storage.EntryInput, `{}`))
	r.ok(err, "Append under a renewed claim")
	_, err = s.Claim(ctx, a, "kept", "second", time.Minute)
	r.is(err, storage.ErrConversationBusy, "Claim of a renewed lease")

	got, err = lr.RenewRuns(ctx, []storage.Claim{cb, cb}, time.Hour)
	if r.ok(err, "RenewRuns of a claim given twice") && r.truef(len(got) == 2, "RenewRuns of 2 claims returned %d", len(got)) {
		r.ok(got[0].Err, "RenewRuns of a claim given twice, first")
		r.ok(got[1].Err, "RenewRuns of a claim given twice, second")
	}
	got, err = lr.RenewRuns(ctx, nil, time.Minute)
	r.truef(err == nil && len(got) == 0, "RenewRuns of no claims: %v, %v", got, err)
	_, err = lr.RenewRuns(ctx, []storage.Claim{ca}, 0)
	r.is(err, storage.ErrInvalid, "RenewRuns for no time")
}

// ruleBeginRun checks BeginRun of a run with a conversation: it claims as Claim does and reads what Load and
// GetSettings read, within the claim's tenant.
func ruleBeginRun(r *rec) {
	cl := r
	s, ctx := r.s, r.ctx
	a, b := r.tenant("a"), r.tenant("b")
	id := r.conv(a, "loaded")
	r.conv(b, id)
	kind := r.kind(a, "agent")
	doc, err := s.PutSettings(ctx, storage.Document{SettingsID: a, Kind: kind, SchemaVersion: 1, Data: json.RawMessage(`{"limit":7}`)}, 0)
	if !r.ok(err, "PutSettings") {
		return
	}
	got, err := cl.claimLoad(a, id, "storetest", time.Minute, kind, "missing")
	if !r.ok(err, "BeginRun of a new conversation") {
		return
	}
	c := got.Claim
	r.truef(len(got.Entries) == 0 && c.Token != "" && c.Owner == "storetest", "BeginRun of a new conversation: %+v, %d entries", c, len(got.Entries))
	if d, ok := got.Settings[kind]; r.truef(ok && len(got.Settings) == 1, "BeginRun read settings %v, want the one of kind %q", got.Settings, kind) {
		r.truef(d.Revision == doc.Revision && jsonEqual(d.Data, doc.Data), "BeginRun read %+v, want %+v", d, doc)
	}
	busy, err := cl.claimLoad(a, id, "second", time.Minute, kind)
	r.is(err, storage.ErrConversationBusy, "BeginRun of a held conversation")
	r.truef(busy.Claim.Token == "" && len(busy.Entries) == 0 && len(busy.Settings) == 0, "BeginRun of a held conversation returned %+v", busy)
	_, err = s.Append(ctx, c, entry(storage.EntryInput, `{"n":1}`), entry(storage.EntrySummary, `{"n":2}`), entry(storage.EntryResponse, `{"n":3}`))
	if !r.ok(err, "Append") || !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	want, err := s.Load(ctx, a, id)
	if !r.ok(err, "Load") {
		return
	}
	got, err = cl.claimLoad(a, id, "storetest", time.Minute)
	if r.ok(err, "BeginRun of a stored conversation") {
		r.sameEntries("BeginRun", got.Entries, want)
		_, err = s.Append(ctx, got.Claim, entry(storage.EntryResponse, `{"n":4}`))
		r.ok(err, "Append under BeginRun's claim")
	}
	other, err := cl.claimLoad(b, id, "storetest", time.Minute, kind)
	if r.ok(err, "BeginRun of the same id under another tenant") {
		r.truef(len(other.Entries) == 0 && len(other.Settings) == 0,
			"BeginRun under another tenant read %d entries and %d documents of the first", len(other.Entries), len(other.Settings))
		r.ok(s.Release(ctx, other.Claim), "Release")
	}
	_, err = cl.claimLoad("", id, "storetest", time.Minute)
	r.is(err, storage.ErrInvalid, "BeginRun without a settings id")
	_, err = cl.claimLoad(a, id, "storetest", 0)
	r.is(err, storage.ErrInvalid, "BeginRun for no time")
	_, err = cl.claimLoad(a, r.conv(a, "owner"), "bad\x00owner", time.Minute)
	r.is(err, storage.ErrInvalid, "BeginRun with an owner no store holds")
	_, err = cl.claimLoad(a, r.conv(a, "kinds"), "storetest", time.Minute, "")
	r.is(err, storage.ErrInvalid, "BeginRun of settings without a kind")
	res := reservation(a, "r", 1)
	_, err = r.runs.BeginRun(ctx, storage.RunBegin{SettingsID: a, ConversationID: "kinds", Owner: "storetest", TTL: time.Minute, Reserve: &res})
	r.is(err, storage.ErrInvalid, "BeginRun of a conversation with a reservation")
	_, err = s.Claim(ctx, a, "kinds", "storetest", time.Minute)
	r.ok(err, "Claim after a BeginRun that was refused") // nothing was claimed
}

// ruleEndRun checks EndRun: the entries are stored and the lease is free at once; under a lost claim nothing is
// stored and the live lease stays.
func ruleEndRun(r *rec) {
	ar := r
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "released")
	c, ok := r.claim(sid, id)
	if !ok {
		return
	}
	got, err := ar.appendRelease(c, entry(storage.EntryInput, `{}`), entry(storage.EntryRunEnd, `{}`))
	if !r.ok(err, "EndRun") {
		return
	}
	r.truef(len(got) == 2 && got[0].Seq == 1 && got[1].Seq == 2, "EndRun: seqs %v, want [1 2]", seqs(got))
	_, err = s.Append(ctx, c, entry(storage.EntryResponse, `{}`))
	r.is(err, storage.ErrClaimLost, "Append after EndRun")
	next, err := s.Claim(ctx, sid, id, "next", time.Minute)
	if !r.ok(err, "Claim after EndRun") {
		return
	}
	_, err = ar.appendRelease(c, entry(storage.EntryRunEnd, `{"late":true}`))
	r.is(err, storage.ErrClaimLost, "EndRun under a lost claim")
	_, err = s.Claim(ctx, sid, id, "third", time.Minute)
	r.is(err, storage.ErrConversationBusy, "Claim after an EndRun that lost")
	all, err := s.LoadAll(ctx, sid, id)
	if r.ok(err, "LoadAll") {
		r.truef(len(all) == 2, "EndRun under a lost claim stored something: %d entries, want 2", len(all))
	}
	got, err = ar.appendRelease(next)
	r.truef(err == nil && len(got) == 0, "EndRun of no entries: %v, %v", got, err)
	_, err = s.Append(ctx, next, entry(storage.EntryResponse, `{}`))
	r.is(err, storage.ErrClaimLost, "Append after EndRun of no entries")
	_, err = ar.appendRelease(storage.Claim{SettingsID: sid, ConversationID: id})
	r.is(err, storage.ErrInvalid, "EndRun of a claim without a token")
}

// ruleSteerKeptByEndRun checks that EndRun, like Release, stores the steering input the run did not take in,
// after the run's last entries, and that BeginRun, like Claim, moves in the input a run left queued when its lease
// expired, before it loads.
func ruleSteerKeptByEndRun(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	ar, cl := r, r
	{
		id := r.conv(sid, "kept-by-append-release")
		c, ok := r.claim(sid, id)
		if !ok || !r.ok(s.Steer(ctx, sid, id, []byte(`"too late"`)), "Steer") {
			return
		}
		if _, err := ar.appendRelease(c, entry(storage.EntryInput, `{}`), entry(storage.EntryRunEnd, `{}`)); !r.ok(err, "EndRun") {
			return
		}
		all, err := s.LoadAll(ctx, sid, id)
		if r.ok(err, "LoadAll") {
			var types []string
			for _, e := range all {
				types = append(types, string(e.Type))
			}
			r.truef(strings.Join(types, ",") == "input,run_end,steering",
				"EndRun with queued steering stored %v, want input, run_end, then the steering input", types)
		}
	}
	{
		id := r.conv(sid, "kept-for-claim-load")
		if _, ok := r.crashWithSteering(sid, id, `"before the crash"`); !ok {
			return
		}
		var got storage.RunBegun
		if !r.afterLease(func() (err error) {
			got, err = cl.claimLoad(sid, id, "successor", time.Minute)
			return err
		}, "BeginRun") {
			return
		}
		n := 0
		for _, e := range got.Entries {
			if e.Type == storage.EntrySteering {
				n++
			}
		}
		r.truef(n == 1, "BeginRun after a crash loaded %d steering entries, want the 1 left queued", n)
	}
}

// claimLoad begins a run of conversationID under settingsID, reading the settings of kinds.
func (r *rec) claimLoad(settingsID, conversationID, owner string, ttl time.Duration, kinds ...string) (storage.RunBegun, error) {
	return r.runs.BeginRun(r.ctx, storage.RunBegin{SettingsID: settingsID, ConversationID: conversationID, Owner: owner, TTL: ttl, Kinds: kinds})
}

// appendRelease ends the run of claim c with entries.
func (r *rec) appendRelease(c storage.Claim, entries ...storage.Entry) ([]storage.Entry, error) {
	return r.runs.EndRun(r.ctx, storage.RunEnd{Claim: c, Entries: entries})
}
