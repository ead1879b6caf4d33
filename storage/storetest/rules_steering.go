package storetest

import (
	"context"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// steeringIn returns the data of the conversation's steering entries, in
// order.
func (r *rec) steeringIn(sid, id string) ([]string, bool) {
	all, err := r.s.LoadAll(r.ctx, sid, id)
	if !r.ok(err, "LoadAll") {
		return nil, false
	}
	var out []string
	for _, e := range all {
		if e.Type == storage.EntrySteering {
			out = append(out, string(e.Data))
		}
	}
	return out, true
}

func (r *rec) sameStrings(what string, got []string, want ...string) bool {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = jsonEqual([]byte(got[i]), []byte(want[i]))
	}
	return r.truef(ok, "%s: %q, want %q", what, got, want)
}

func ruleSteerNeedsLiveClaim(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "steered")
	r.is(s.Steer(ctx, sid, id, []byte(`"nobody"`)), storage.ErrNotRunning, "Steer without a claim")
	r.is(s.Steer(ctx, sid, id, []byte(`{`)), storage.ErrInvalid, "Steer with data that is not JSON")
	r.is(s.Steer(ctx, "", id, []byte(`1`)), storage.ErrInvalid, "Steer without a settings id")
	c, ok := r.claim(sid, id)
	if !ok {
		return
	}
	r.ok(s.Steer(ctx, sid, id, []byte(`"live"`)), "Steer under a live claim")
	// Steer never claims: the claim is still the run's, and nobody else's.
	if _, err := s.Renew(ctx, c, time.Minute); !r.ok(err, "Renew after Steer") {
		return
	}
	_, err := s.Claim(ctx, sid, id, "other", time.Minute)
	r.is(err, storage.ErrConversationBusy, "Claim after Steer")
	if !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	r.is(s.Steer(ctx, sid, id, []byte(`"late"`)), storage.ErrNotRunning, "Steer after Release")
	got, ok := r.steeringIn(sid, id)
	if ok {
		r.sameStrings("steering stored", got, `"live"`)
	}
}

func ruleSteerTakenOnce(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "taken")
	c, ok := r.claim(sid, id)
	if !ok {
		return
	}
	if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
		return
	}
	none, err := s.TakeSteering(ctx, c, storage.Entry{})
	if !r.ok(err, "TakeSteering of nothing") || !r.truef(len(none) == 0, "TakeSteering of nothing: %d entries", len(none)) {
		return
	}
	for _, d := range []string{`{"n":1}`, `{"n":2}`} {
		if !r.ok(s.Steer(ctx, sid, id, []byte(d)), "Steer") {
			return
		}
	}
	stamp := storage.Entry{RunID: "run-7", Agent: "support", Author: "user"}
	got, err := s.TakeSteering(ctx, c, stamp)
	if !r.ok(err, "TakeSteering") {
		return
	}
	want := []storage.Entry{
		{Seq: 2, Type: storage.EntrySteering, RunID: "run-7", Agent: "support", Author: "user", Data: []byte(`{"n":1}`)},
		{Seq: 3, Type: storage.EntrySteering, RunID: "run-7", Agent: "support", Author: "user", Data: []byte(`{"n":2}`)},
	}
	if !r.sameEntries("TakeSteering", got, want) {
		return
	}
	again, err := s.TakeSteering(ctx, c, stamp)
	if !r.ok(err, "TakeSteering again") || !r.truef(len(again) == 0, "TakeSteering again: %d entries, want none: input is taken once", len(again)) {
		return
	}
	all, err := s.LoadAll(ctx, sid, id)
	if r.ok(err, "LoadAll") && r.truef(len(all) == 3, "LoadAll: %d entries, want 3", len(all)) {
		r.sameEntries("stored steering", all[1:], got)
	}
	if !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	_, err = s.TakeSteering(ctx, c, stamp)
	r.is(err, storage.ErrClaimLost, "TakeSteering after Release")
}

func ruleSteerKeptAfterRelease(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "kept")
	// A claim without an entry: the run ended before it stored anything.
	c, ok := r.claim(sid, id)
	if !ok || !r.ok(s.Steer(ctx, sid, id, []byte(`"after the last call"`)), "Steer") || !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	got, ok := r.steeringIn(sid, id)
	if ok {
		r.sameStrings("steering kept by Release", got, `"after the last call"`)
	}
	// The next run finds it in the history it loads, and nothing is queued.
	c, ok = r.claim(sid, id)
	if !ok {
		return
	}
	taken, err := s.TakeSteering(ctx, c, storage.Entry{})
	if r.ok(err, "TakeSteering in the next run") {
		r.truef(len(taken) == 0, "the next run took %d inputs again", len(taken))
	}
	r.ok(s.Release(ctx, c), "Release")
}

func ruleSteerKeptAfterExpiry(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "crashed")
	old, ok := r.crashWithSteering(sid, id, `"before the crash"`)
	if !ok {
		return
	}
	var next storage.Claim
	if !r.afterLease(func() (err error) {
		next, err = s.Claim(ctx, sid, id, "successor", time.Minute)
		return err
	}, "Claim") {
		return
	}
	r.is(s.Steer(ctx, sid, id, []byte(`"never"`)), nil, "Steer under the new claim")
	_, err := s.TakeSteering(ctx, old, storage.Entry{})
	r.is(err, storage.ErrClaimLost, "TakeSteering under the expired claim")
	got, ok := r.steeringIn(sid, id)
	if ok {
		r.sameStrings("steering kept for the next run", got, `"before the crash"`)
	}
	taken, err := s.TakeSteering(ctx, next, storage.Entry{})
	if r.ok(err, "TakeSteering of the new run") && r.truef(len(taken) == 1, "the new run took %d inputs, want 1", len(taken)) {
		r.sameStrings("the new run's input", []string{string(taken[0].Data)}, `"never"`)
	}
	r.ok(s.Release(ctx, next), "Release")
}

// crashLease is the lease of a run that crashWithSteering lets crash.
const crashLease = 200 * time.Millisecond

// crashWithSteering claims the conversation for a run that stores its input, is steered with data, and crashes:
// no TakeSteering, no Release. It returns the crashed run's claim.
func (r *rec) crashWithSteering(sid, id, data string) (storage.Claim, bool) {
	s, ctx := r.s, r.ctx
	old, err := s.Claim(ctx, sid, id, "crashed", crashLease)
	if !r.ok(err, "Claim") {
		return old, false
	}
	if _, err := s.Append(ctx, old, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
		return old, false
	}
	return old, r.ok(s.Steer(ctx, sid, id, []byte(data)), "Steer")
}

// afterLease calls claim until the crashed run's lease is out and it succeeds, a bounded number of times; claim
// names what it calls.
func (r *rec) afterLease(claim func() error, what string) bool {
	for i := range 50 {
		time.Sleep(crashLease / 4)
		err := claim()
		if err == nil {
			return true
		}
		if i == 49 || !r.is(err, storage.ErrConversationBusy, what+" while the old lease runs") {
			return false
		}
	}
	return false
}

func ruleSteerTenancy(r *rec) {
	s, ctx := r.s, r.ctx
	a, b := r.tenant("a"), r.tenant("b")
	id := r.conv(a, "walled")
	r.conv(b, id)
	ca, ok := r.claim(a, id)
	if !ok {
		return
	}
	// b has no run on its conversation of the same id: a's claim does not count.
	r.is(s.Steer(ctx, b, id, []byte(`"from b"`)), storage.ErrNotRunning, "Steer of b while a runs")
	cb, ok := r.claim(b, id)
	if !ok {
		return
	}
	if !r.ok(s.Steer(ctx, b, id, []byte(`"for b"`)), "Steer of b") || !r.ok(s.Steer(ctx, a, id, []byte(`"for a"`)), "Steer of a") {
		return
	}
	for _, c := range []struct {
		claim storage.Claim
		want  string
	}{{ca, `"for a"`}, {cb, `"for b"`}} {
		got, err := s.TakeSteering(ctx, c.claim, storage.Entry{})
		if !r.ok(err, "TakeSteering") {
			return
		}
		var data []string
		for _, e := range got {
			data = append(data, string(e.Data))
		}
		r.sameStrings("TakeSteering of "+c.claim.SettingsID, data, c.want)
	}
	// A claim of a's names a's conversation only: passed with b's ids it is not b's lease.
	forged := ca
	forged.SettingsID = b
	_, err := s.TakeSteering(ctx, forged, storage.Entry{})
	r.is(err, storage.ErrClaimLost, "TakeSteering with a's token for b")
	r.ok(s.Release(ctx, ca), "Release a")
	r.ok(s.Release(ctx, cb), "Release b")
}

func ruleSteerSignal(r *rec) {
	s := r.s
	sid := r.tenant("a")
	id := r.conv(sid, "signalled")
	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	ch, err := s.WatchSteering(wctx, sid, id)
	if !r.ok(err, "WatchSteering") {
		stop()
		return
	}
	c, ok := r.claim(sid, id)
	if !ok || !r.ok(s.Steer(ctx, sid, id, []byte(`"wake up"`)), "Steer") {
		stop()
		return
	}
	select {
	case _, ok := <-ch:
		r.truef(ok, "WatchSteering closed before its context ended")
	case <-ctx.Done():
		r.failf("no signal after Steer")
	}
	r.ok(s.Release(ctx, c), "Release")
	stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-ctx.Done():
			r.failf("WatchSteering not closed after its context ended")
			return
		}
	}
}
