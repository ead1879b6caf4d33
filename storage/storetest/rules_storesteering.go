package storetest

import (
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// ruleStoreSteering checks StoreSteering: under a live claim the input is queued for the
// run, without the claim changing hands; without one it is stored at once, behind what a crashed run left queued,
// and claims nothing; another tenant, a conversation never claimed and data that is not JSON store nothing.
func ruleStoreSteering(r *rec) {
	ss := r.runs
	s, ctx := r.s, r.ctx
	a, b := r.tenant("a"), r.tenant("b")
	id := r.conv(a, "reported")
	r.is(ss.StoreSteering(ctx, a, id, []byte(`"nobody"`)), storage.ErrNotFound, "StoreSteering of a conversation never claimed")

	c, ok := r.claim(a, id)
	if !ok {
		return
	}
	if _, err := s.Append(ctx, c, entry(storage.EntryInput, `{}`)); !r.ok(err, "Append") {
		return
	}
	r.ok(ss.StoreSteering(ctx, a, id, []byte(`"live"`)), "StoreSteering under a live claim")
	r.is(ss.StoreSteering(ctx, a, id, []byte(`{`)), storage.ErrInvalid, "StoreSteering of data that is not JSON")
	if got, ok := r.steeringIn(a, id); ok {
		r.sameStrings("steering stored before the run took it in", got)
	}
	if _, err := s.Renew(ctx, c, time.Minute); !r.ok(err, "Renew after StoreSteering") {
		return
	}
	taken, err := s.TakeSteering(ctx, c, storage.Entry{})
	if r.ok(err, "TakeSteering") {
		r.truef(len(taken) == 1 && string(taken[0].Data) == `"live"`, "TakeSteering took %d entries, want the one queued", len(taken))
	}
	if !r.ok(s.Release(ctx, c), "Release") {
		return
	}

	// No run holds it: stored at once, and the conversation stays free.
	r.ok(ss.StoreSteering(ctx, a, id, []byte(`"after"`)), "StoreSteering without a claim")
	if got, ok := r.steeringIn(a, id); ok {
		r.sameStrings("steering stored without a claim", got, `"live"`, `"after"`)
	}
	next, err := s.Claim(ctx, a, id, "next", time.Minute)
	if r.ok(err, "Claim after StoreSteering") {
		r.ok(s.Release(ctx, next), "Release")
	}

	// Another tenant reaches nothing of it.
	r.is(ss.StoreSteering(ctx, b, id, []byte(`"forged"`)), storage.ErrNotFound, "StoreSteering as another tenant")
	if got, ok := r.steeringIn(a, id); ok {
		r.sameStrings("steering after another tenant's StoreSteering", got, `"live"`, `"after"`)
	}

	// A crashed run's queued input comes first, once its lease is out.
	crashed := r.conv(a, "reported-after-crash")
	if _, ok := r.crashWithSteering(a, crashed, `"queued"`); !ok {
		return
	}
	time.Sleep(2 * crashLease)
	r.ok(ss.StoreSteering(ctx, a, crashed, []byte(`"report"`)), "StoreSteering after a crashed run's lease")
	if got, ok := r.steeringIn(a, crashed); ok {
		r.sameStrings("steering after a crash", got, `"queued"`, `"report"`)
	}
}
