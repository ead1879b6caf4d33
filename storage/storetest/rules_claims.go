package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

func ruleClaimBusy(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "busy")
	c, err := s.Claim(ctx, sid, id, "first", time.Minute)
	if !r.ok(err, "Claim") {
		return
	}
	r.truef(c.Token != "" && c.Owner == "first" && c.SettingsID == sid && c.ConversationID == id,
		"Claim returned %+v", c)
	r.truef(c.ExpiresAt.After(time.Now().Add(30*time.Second)), "Claim for a minute expires at %v", c.ExpiresAt)

	_, err = s.Claim(ctx, sid, id, "second", time.Minute)
	r.is(err, storage.ErrConversationBusy, "Claim of a held conversation")
	_, err = s.Claim(ctx, sid, id, "first", time.Minute)
	r.is(err, storage.ErrConversationBusy, "Claim of a held conversation by the same owner")

	renewed, err := s.Renew(ctx, c, time.Hour)
	if r.ok(err, "Renew") {
		r.truef(renewed.ExpiresAt.After(c.ExpiresAt) && renewed.Token == c.Token, "Renew: %+v after %+v", renewed, c)
	}
	if !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	c2, err := s.Claim(ctx, sid, id, "second", time.Minute)
	if r.ok(err, "Claim after Release") {
		r.truef(c2.Token != c.Token, "a new claim reused the token %q", c.Token)
		r.ok(s.Release(ctx, c2), "Release")
	}
}

func ruleClaimExpiry(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "expiry")
	const ttl = 40 * time.Millisecond
	old, err := s.Claim(ctx, sid, id, "crashed", ttl)
	if !r.ok(err, "Claim") {
		return
	}
	if _, err := s.Append(ctx, old, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
		return
	}
	// Wait out the lease, a bounded number of times.
	var taken storage.Claim
	for i := range 50 {
		time.Sleep(ttl)
		taken, err = s.Claim(ctx, sid, id, "successor", time.Minute)
		if err == nil {
			break
		}
		if i == 49 || !r.is(err, storage.ErrConversationBusy, "Claim while the old lease runs") {
			r.failf("the expired lease was never taken over: %v", err)
			return
		}
	}
	_, err = s.Append(ctx, old, entry(storage.EntryResponse, `{}`))
	r.is(err, storage.ErrClaimLost, "Append under a lease taken over")
	_, err = s.Renew(ctx, old, time.Minute)
	r.is(err, storage.ErrClaimLost, "Renew of a lease taken over")
	r.is(s.Release(ctx, old), storage.ErrClaimLost, "Release of a lease taken over")
	got, err := s.Append(ctx, taken, entry(storage.EntryResponse, `{}`))
	if r.ok(err, "Append under the new lease") {
		r.truef(len(got) == 1 && got[0].Seq == 2, "Append under the new lease: seqs %v, want [2]", seqs(got))
	}
}

func ruleClaimLost(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	id := r.conv(sid, "lost")
	c, ok := r.claim(sid, id)
	if !ok {
		return
	}
	if !r.ok(s.Release(ctx, c), "Release") {
		return
	}
	_, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`))
	r.is(err, storage.ErrClaimLost, "Append after Release")
	_, err = s.Renew(ctx, c, time.Minute)
	r.is(err, storage.ErrClaimLost, "Renew after Release")
	r.is(s.Release(ctx, c), storage.ErrClaimLost, "second Release")

	forged := c
	forged.Token = "forged"
	c2, ok := r.claim(sid, id)
	if !ok {
		return
	}
	_, err = s.Append(ctx, forged, entry(storage.EntryInput, `{}`))
	r.is(err, storage.ErrClaimLost, "Append with a forged token")
	// The short lease expires; it is lost even though nobody took it over.
	short, err := s.Renew(ctx, c2, time.Millisecond)
	if !r.ok(err, "Renew") {
		return
	}
	time.Sleep(20 * time.Millisecond)
	_, err = s.Append(ctx, short, entry(storage.EntryInput, `{}`))
	r.is(err, storage.ErrClaimLost, "Append after the lease expired")
	_, err = s.Renew(ctx, short, time.Minute)
	r.is(err, storage.ErrClaimLost, "Renew after the lease expired")
}

func ruleConcurrentAppends(r *rec) {
	s, ctx := r.s, r.ctx
	sid := r.tenant("a")
	c, ok := r.claim(sid, r.conv(sid, "concurrent"))
	if !ok {
		return
	}
	const writers, rounds = 6, 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				es := []storage.Entry{entry(storage.EntryToolResults, fmt.Sprintf(`{"w":%d,"i":%d,"part":0}`, w, i))}
				if i%2 == 1 {
					es = append(es, entry(storage.EntryResponse, fmt.Sprintf(`{"w":%d,"i":%d,"part":1}`, w, i)))
				}
				got, err := s.Append(ctx, c, es...)
				if !r.ok(err, "concurrent Append") {
					return
				}
				if len(got) == 2 && got[1].Seq != got[0].Seq+1 {
					r.failf("one Append got sequence numbers %d and %d", got[0].Seq, got[1].Seq)
				}
			}
		})
	}
	wg.Wait()
	all, err := s.LoadAll(ctx, sid, c.ConversationID)
	if !r.ok(err, "LoadAll") {
		return
	}
	want := writers * (rounds + rounds/2)
	if !r.truef(len(all) == want, "LoadAll after concurrent appends: %d entries, want %d", len(all), want) {
		return
	}
	next := make([]int, writers) // each writer's entries must keep their order
	for i, e := range all {
		if !r.truef(e.Seq == int64(i+1), "entry %d has seq %d", i+1, e.Seq) {
			return
		}
		var d struct{ W, I, Part int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			r.failf("entry %d: unexpected data %s", e.Seq, e.Data)
			return
		}
		w, n, part := d.W, d.I, d.Part
		if !r.truef(w >= 0 && w < writers && n == next[w], "writer %d's round %d stored out of order (expected round %d)", w, n, next[w]) {
			return
		}
		if part == 1 || n%2 == 0 {
			next[w]++
		}
	}
}
