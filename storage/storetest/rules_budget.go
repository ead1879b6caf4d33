package storetest

import (
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/budgetcalc"
)

// budgeter returns the rule's store as a Budgeter, and a function that puts a tenant's budget document; false
// when the store keeps no budgets.
func (r *rec) budgeter() (storage.Budgeter, bool) {
	b, ok := r.s.(storage.Budgeter)
	if ok {
		r.mu.Lock()
		r.budgets = true
		r.mu.Unlock()
	}
	return b, ok
}

func (r *rec) putBudget(settingsID, data string) bool {
	kind := r.kind(settingsID, storage.BudgetKind)
	var rev int64
	if d, err := r.s.GetSettings(r.ctx, settingsID, kind); err == nil {
		rev = d.Revision
	}
	_, err := r.s.PutSettings(r.ctx, storage.Document{SettingsID: settingsID, Kind: kind, SchemaVersion: 1, Data: json.RawMessage(data)}, rev)
	return r.ok(err, "PutSettings of a budget")
}

// reservation returns a run's reservation of tokens for a rule.
func reservation(settingsID, runID string, tokens int64) storage.BudgetReservation {
	return storage.BudgetReservation{SettingsID: settingsID, RunID: runID, TTL: time.Minute, Reserve: storage.BudgetSpend{Tokens: tokens}}
}

// exceeded reports whether err is a refusal of window and measure, and returns it.
func (r *rec) exceeded(err error, window, measure, what string) (*storage.BudgetExceededError, bool) {
	var e *storage.BudgetExceededError
	if !errors.As(err, &e) {
		r.failf("%s: got error %v, want a refusal of the %s window", what, err, window)
		return nil, false
	}
	return e, r.truef(e.Window == window && e.Measure == measure, "%s: refused by %s %s, want %s %s", what, e.Window, e.Measure, window, measure)
}

// ruleBudgetReserve checks that a reservation counts the spend and every live reservation of the tenant, that a
// refusal says which window and when it resets, that a settlement frees the room, and that another tenant's
// budget is its own.
func ruleBudgetReserve(r *rec) {
	b, ok := r.budgeter()
	if !ok {
		return
	}
	ctx := r.ctx
	a, other := r.tenant("a"), r.tenant("b")
	if !r.putBudget(a, `{"day": {"tokens": 1000}}`) {
		return
	}
	if !r.ok(b.ReserveBudget(ctx, reservation(a, "r1", 600)), "ReserveBudget of 600 of 1000") {
		return
	}
	before := time.Now()
	err := b.ReserveBudget(ctx, reservation(a, "r2", 500))
	if e, ok := r.exceeded(err, storage.WindowDay, "tokens", "ReserveBudget of 500 more"); ok {
		r.is(err, storage.ErrBudgetExceeded, "a refused reservation")
		_, reset, _, _ := budgetcalc.Windows(before)
		_, later, _, _ := budgetcalc.Windows(time.Now())
		r.truef(e.Limit == 1000 && e.Used == 600 && e.Asked == 500 && (e.ResetAt.Equal(reset) || e.ResetAt.Equal(later)) && e.SettingsID == a,
			"the refusal says %+v, want limit 1000, used 600, asked 500, reset at %v", e, reset)
	}
	r.ok(b.ReserveBudget(ctx, reservation(other, "r2", 1_000_000)), "ReserveBudget of another tenant without a budget")

	// r1 ends having used 300: r2's 500 fit now.
	end := reservation(a, "r1", 0)
	end.Settle, end.End = storage.BudgetSpend{Tokens: 300}, true
	r.ok(b.ReserveBudget(ctx, end), "ReserveBudget ending r1")
	r.ok(b.ReserveBudget(ctx, reservation(a, "r2", 500)), "ReserveBudget of 500 after r1 settled 300")
	u, err := b.BudgetUsage(ctx, a, "", storage.BudgetLimits{})
	if r.ok(err, "BudgetUsage") && r.truef(len(u.Windows) == 2, "BudgetUsage without a conversation gave %d windows, want day and month", len(u.Windows)) {
		r.truef(u.Windows[0].Window == storage.WindowDay && u.Windows[0].Spent.Tokens == 300 && u.Windows[1].Spent.Tokens == 300,
			"BudgetUsage windows %+v, want 300 spent in the day and the month", u.Windows)
		r.truef(u.LiveRuns == 1 && u.Reserved.Tokens == 500, "BudgetUsage: %d live runs holding %d tokens, want 1 holding 500", u.LiveRuns, u.Reserved.Tokens)
		r.truef(u.Limits.Day != nil && u.Limits.Day.Tokens != nil && *u.Limits.Day.Tokens == 1000, "BudgetUsage limits %+v, want the document's", u.Limits)
	}
	u, err = b.BudgetUsage(ctx, other, "", storage.BudgetLimits{})
	if r.ok(err, "BudgetUsage of the other tenant") {
		r.truef(u.LiveRuns == 1 && u.Reserved.Tokens == 1_000_000 && u.Windows[0].Spent.Tokens == 0,
			"the other tenant's usage %+v holds only its own", u)
	}
	r.ok(b.DeleteBudget(ctx, other), "DeleteBudget")
	u, err = b.BudgetUsage(ctx, other, "", storage.BudgetLimits{})
	if r.ok(err, "BudgetUsage after DeleteBudget") {
		r.truef(u.LiveRuns == 0, "DeleteBudget left %d live runs", u.LiveRuns)
	}
}

// ruleBudgetLimits checks the limits: the defaults under the tenant's document, a negative value lifting a
// default, costs with an unpriced call refused under a cost limit, the run and conversation windows, a corrupt
// document and invalid arguments.
func ruleBudgetLimits(r *rec) {
	b, ok := r.budgeter()
	if !ok {
		return
	}
	ctx := r.ctx
	lifted, plain, costly := r.tenant("lifted"), r.tenant("plain"), r.tenant("cost")
	hundred := int64(100)
	defaults := storage.BudgetLimits{Day: &storage.BudgetLimit{Tokens: &hundred}}
	if !r.putBudget(lifted, `{"day": {"tokens": -1}}`) || !r.putBudget(costly, `{"month": {"cost": 1}, "run": {"tokens": 100}, "conversation": {"tokens": 150}}`) {
		return
	}
	res := reservation(plain, "r", 101)
	res.Defaults = defaults
	_, _ = r.exceeded(b.ReserveBudget(ctx, res), storage.WindowDay, "tokens", "ReserveBudget past a default")
	res.SettingsID = lifted
	r.ok(b.ReserveBudget(ctx, res), "ReserveBudget of a tenant whose document lifts the default")

	res = reservation(costly, "r1", 10)
	res.Reserve.Nanos = 600_000_000
	r.ok(b.ReserveBudget(ctx, res), "ReserveBudget of 0.6 of a cost limit of 1")
	res.RunID = "r2"
	res.Reserve.Nanos = 500_000_000
	_, _ = r.exceeded(b.ReserveBudget(ctx, res), storage.WindowMonth, "cost", "ReserveBudget of 0.5 more")
	res.Reserve = storage.BudgetSpend{Tokens: 10, Unpriced: true}
	if e, ok := r.exceeded(b.ReserveBudget(ctx, res), storage.WindowMonth, "cost", "ReserveBudget of an unpriced call under a cost limit"); ok {
		r.truef(e.Unpriced, "the refusal of an unpriced call does not say so: %+v", e)
	}
	res.SettingsID = lifted
	r.ok(b.ReserveBudget(ctx, res), "ReserveBudget of an unpriced call without a cost limit")

	// The run window: r1 has 60 settled, and may not reserve 50 more.
	res = reservation(costly, "r1", 50)
	res.Settle = storage.BudgetSpend{Tokens: 60, Nanos: 1000}
	_, _ = r.exceeded(b.ReserveBudget(ctx, res), storage.WindowRun, "tokens", "ReserveBudget past the run's limit")
	res.Settle = storage.BudgetSpend{}
	res.Reserve.Tokens = 40
	r.ok(b.ReserveBudget(ctx, res), "ReserveBudget within the run's limit, its settlement kept from the refusal")
	// The conversation window counts the runs of the conversation, one after the other.
	conv := r.conv(costly, "budgeted")
	for i, want := range []bool{true, true, false} {
		res = reservation(costly, "c"+string(rune('0'+i)), 60)
		res.ConversationID = conv
		err := b.ReserveBudget(ctx, res)
		if want {
			res.Reserve, res.Settle, res.End = storage.BudgetSpend{}, storage.BudgetSpend{Tokens: 60}, true
			r.ok(err, "ReserveBudget in a conversation") // 60, 120
			r.ok(b.ReserveBudget(ctx, res), "ReserveBudget ending a run of a conversation")
		} else {
			_, _ = r.exceeded(err, storage.WindowConversation, "tokens", "ReserveBudget past the conversation's limit")
		}
	}
	u, err := b.BudgetUsage(ctx, costly, conv, storage.BudgetLimits{})
	if r.ok(err, "BudgetUsage of a conversation") && r.truef(len(u.Windows) == 3, "BudgetUsage with a conversation gave %d windows", len(u.Windows)) {
		w := u.Windows[2]
		r.truef(w.Window == storage.WindowConversation && w.Key == conv && w.Spent.Tokens == 120 && w.ResetAt.IsZero(),
			"the conversation's window is %+v, want 120 spent and no reset", w)
		r.truef(u.Windows[1].Spent.Nanos == 1000 && u.Windows[1].Spent.Tokens == 180, "the month's window is %+v, want 180 tokens and 1000 nanos", u.Windows[1])
	}

	corrupt := r.tenant("corrupt")
	if r.putBudget(corrupt, `{"day": {"tokens": "many"}}`) {
		err := b.ReserveBudget(ctx, reservation(corrupt, "r", 1))
		r.truef(err != nil && !errors.Is(err, storage.ErrBudgetExceeded), "ReserveBudget under a corrupt budget document: %v, want an error that is no refusal", err)
	}
	for _, bad := range []storage.BudgetReservation{
		reservation("", "r", 1),
		reservation(plain, "", 1),
		reservation(plain, "r", -1),
		{SettingsID: plain, RunID: "r", Reserve: storage.BudgetSpend{Tokens: 1}}, // no TTL
		reservation(plain, "r\x00", 1),
	} {
		r.is(b.ReserveBudget(ctx, bad), storage.ErrInvalid, "ReserveBudget of an invalid reservation")
	}
}

// ruleBudgetLiveRuns checks the live runs limit: a run holds its place from its first reservation to its end,
// and a run whose claim or reservation expired (its process killed) holds nothing, nor its reservation.
func ruleBudgetLiveRuns(r *rec) {
	b, ok := r.budgeter()
	if !ok {
		return
	}
	ctx := r.ctx
	a := r.tenant("a")
	if !r.putBudget(a, `{"live_runs": 1, "day": {"tokens": 1000}}`) {
		return
	}
	const short = 300 * time.Millisecond
	conv := r.conv(a, "killed")
	claim, err := r.s.Claim(ctx, a, conv, "storetest", short)
	if !r.ok(err, "Claim") {
		return
	}
	res := reservation(a, "killed", 900)
	res.ConversationID, res.LeaseToken, res.TTL = conv, claim.Token, short
	if !r.ok(b.ReserveBudget(ctx, res), "ReserveBudget under a claim") {
		return
	}
	// The claim is renewed past the reservation's own TTL: the reservation lives with it.
	time.Sleep(short / 2)
	if _, err := r.s.Renew(ctx, claim, 2*short); !r.ok(err, "Renew") {
		return
	}
	time.Sleep(short/2 + 50*time.Millisecond)
	err = b.ReserveBudget(ctx, reservation(a, "other", 10))
	if e, ok := r.exceeded(err, storage.WindowLiveRuns, "runs", "ReserveBudget of a second run while the first's claim lives"); ok {
		r.is(err, storage.ErrTooManyRuns, "a refused live run")
		r.truef(e.Limit == 1 && e.Used == 1 && e.ResetAt.IsZero(), "the refusal says %+v, want limit 1, used 1, no reset", e)
	}
	r.ok(b.ReserveBudget(ctx, res), "ReserveBudget of a live run again")
	// The process holding the claim dies: neither renewal nor settlement comes. Once the claim expires, its
	// reservation and its place are free.
	var freed bool
	for range 40 {
		time.Sleep(short / 3)
		if err := b.ReserveBudget(ctx, reservation(a, "successor", 900)); err == nil {
			freed = true
			break
		} else if !r.truef(errors.Is(err, storage.ErrTooManyRuns) || errors.Is(err, storage.ErrBudgetExceeded), "ReserveBudget while the dead run's claim lives: %v", err) {
			return
		}
	}
	r.truef(freed, "a dead run's reservation was never freed")
}

// ruleBudgetConcurrent checks that concurrent reservations never pass a limit: 40 reservations of 100 tokens
// under a limit of 1000 leave exactly 10 granted.
func ruleBudgetConcurrent(r *rec) {
	b, ok := r.budgeter()
	if !ok {
		return
	}
	a := r.tenant("a")
	if !r.putBudget(a, `{"day": {"tokens": 1000}}`) {
		return
	}
	var granted, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := b.ReserveBudget(r.ctx, reservation(a, "run-"+string(rune('A'+i)), 100))
			switch {
			case err == nil:
				granted.Add(1)
			case errors.Is(err, storage.ErrBudgetExceeded):
				refused.Add(1)
			default:
				r.ok(err, "concurrent ReserveBudget")
			}
		}()
	}
	wg.Wait()
	r.truef(granted.Load() == 10 && refused.Load() == 30, "concurrent reservations: %d granted, %d refused, want 10 and 30", granted.Load(), refused.Load())
}

// ruleBudgetSettledByEndRun checks EndRun's settlements, for a store that keeps budgets: they are done with the
// entries (the settlement counted, the run's place and reservation freed), and under a lost claim none is.
func ruleBudgetSettledByEndRun(r *rec) {
	b, ok := r.budgeter()
	if !ok {
		return
	}
	br := r
	ctx := r.ctx
	a, other := r.tenant("a"), r.tenant("b")
	if !r.putBudget(a, `{"day": {"tokens": 1000}, "live_runs": 2}`) {
		return
	}
	id := r.conv(a, "ended")
	c, ok := r.claim(a, id)
	if !ok {
		return
	}
	res := reservation(a, "run", 600)
	res.ConversationID, res.LeaseToken = id, c.Token
	if !r.ok(b.ReserveBudget(ctx, res), "ReserveBudget under a claim") {
		return
	}
	end := res
	end.Reserve, end.Settle, end.End = storage.BudgetSpend{}, storage.BudgetSpend{Tokens: 300, Nanos: 7}, true

	for _, bad := range []storage.BudgetReservation{
		func() storage.BudgetReservation { e := end; e.SettingsID = other; return e }(),
		func() storage.BudgetReservation { e := end; e.End = false; return e }(),
		func() storage.BudgetReservation { e := end; e.RunID = ""; return e }(),
	} {
		_, err := br.endRun(c, []storage.BudgetReservation{bad}, entry(storage.EntryRunEnd, `{}`))
		r.is(err, storage.ErrInvalid, "EndRun of an end that is not the claim's tenant's")
	}
	_, err := br.endRun(c, []storage.BudgetReservation{end})
	r.is(err, storage.ErrInvalid, "EndRun of ends without entries")
	usage := func(what string) (storage.BudgetUsage, bool) {
		u, err := b.BudgetUsage(ctx, a, id, storage.BudgetLimits{})
		return u, r.ok(err, what) && r.truef(len(u.Windows) == 3, "%s: %d windows, want 3", what, len(u.Windows))
	}
	if u, ok := usage("BudgetUsage after refused ends"); ok {
		r.truef(u.LiveRuns == 1 && u.Reserved.Tokens == 600 && u.Windows[0].Spent.Tokens == 0,
			"refused ends changed the budget: %+v", u)
	}

	got, err := br.endRun(c, []storage.BudgetReservation{end}, entry(storage.EntryInput, `{}`), entry(storage.EntryRunEnd, `{}`))
	if !r.ok(err, "EndRun") {
		return
	}
	r.truef(len(got) == 2 && got[0].Seq == 1 && got[1].Seq == 2, "EndRun: seqs %v, want [1 2]", seqs(got))
	if u, ok := usage("BudgetUsage after EndRun"); ok {
		r.truef(u.LiveRuns == 0 && u.Reserved.Tokens == 0, "the run still holds its place: %+v", u)
		for _, w := range u.Windows {
			r.truef(w.Spent.Tokens == 300 && w.Spent.Nanos == 7, "the %s window spent %+v, want 300 tokens and 7 nanos", w.Window, w.Spent)
		}
	}
	_, err = r.s.Append(ctx, c, entry(storage.EntryResponse, `{}`))
	r.is(err, storage.ErrClaimLost, "Append after EndRun")

	// Under a lost claim the end is not done: the next run's reservation stays, nothing is settled.
	next, ok := r.claim(a, id)
	if !ok {
		return
	}
	res.RunID, res.LeaseToken = "next", next.Token
	if !r.ok(b.ReserveBudget(ctx, res), "ReserveBudget of the next run") {
		return
	}
	late := end
	late.RunID = "next"
	_, err = br.endRun(c, []storage.BudgetReservation{late}, entry(storage.EntryRunEnd, `{"late":true}`))
	r.is(err, storage.ErrClaimLost, "EndRun under a lost claim")
	if u, ok := usage("BudgetUsage after an EndRun that lost"); ok {
		r.truef(u.LiveRuns == 1 && u.Reserved.Tokens == 600 && u.Windows[0].Spent.Tokens == 300,
			"an EndRun that lost changed the budget: %+v", u)
	}
	all, err := r.s.LoadAll(ctx, a, id)
	if r.ok(err, "LoadAll") {
		r.truef(len(all) == 2, "EndRun under a lost claim stored something: %d entries, want 2", len(all))
	}
}

// ruleBudgetReservedByBeginRun checks BeginRun of a run without a conversation, for a store that keeps budgets:
// the document read as GetSettings reads it and the reservation made or refused as ReserveBudget would, each
// whatever the other found.
func ruleBudgetReservedByBeginRun(r *rec) {
	sr, ok := r.budgeter()
	if !ok {
		return
	}
	ctx := r.ctx
	a, other := r.tenant("a"), r.tenant("b")
	if !r.putBudget(a, `{"day": {"tokens": 1000}, "live_runs": 1}`) {
		return
	}
	kind, missing := r.kind(a, "agent"), r.kind(a, "missing")
	put, err := r.s.PutSettings(ctx, storage.Document{SettingsID: a, Kind: kind, SchemaVersion: 1, Data: json.RawMessage(`{"model": "m"}`)}, 0)
	if !r.ok(err, "PutSettings") {
		return
	}
	usage := func(what string) storage.BudgetUsage {
		u, err := sr.BudgetUsage(ctx, a, "", storage.BudgetLimits{})
		r.ok(err, what)
		return u
	}
	begin := func(kind string, res storage.BudgetReservation) (storage.Document, bool, error, error) {
		got, err := r.runs.BeginRun(ctx, storage.RunBegin{SettingsID: res.SettingsID, Kinds: []string{kind}, Reserve: &res})
		r.truef(got.Reserved == (err == nil && got.ReserveErr == nil), "BeginRun: Reserved %v, ReserveErr %v", got.Reserved, got.ReserveErr)
		doc, found := got.Settings[kind]
		return doc, found, got.ReserveErr, err
	}

	doc, found, reserveErr, err := begin(kind, reservation(a, "r1", 600))
	if r.ok(err, "BeginRun") && r.ok(reserveErr, "BeginRun's reservation of 600 of 1000") {
		r.truef(found && jsonEqual(doc.Data, put.Data) && doc.Revision == put.Revision && doc.SettingsID == a && doc.Kind == kind,
			"BeginRun read %+v, want %+v", doc, put)
	}
	u := usage("BudgetUsage after BeginRun")
	r.truef(u.LiveRuns == 1 && u.Reserved.Tokens == 600, "BeginRun holds %d runs and %d tokens, want 1 and 600", u.LiveRuns, u.Reserved.Tokens)

	// A refused reservation and a missing document: each is reported, nothing is reserved.
	_, found, reserveErr, err = begin(missing, reservation(a, "r2", 100))
	r.truef(err == nil && !found, "BeginRun of a missing document: found %v, %v", found, err)
	r.is(reserveErr, storage.ErrTooManyRuns, "BeginRun of a second run under a live_runs limit of 1")
	end := reservation(a, "r1", 0)
	end.Settle, end.End = storage.BudgetSpend{Tokens: 300}, true
	_, err = r.runs.EndRun(ctx, storage.RunEnd{Settle: []storage.BudgetReservation{end}})
	r.ok(err, "EndRun of a run without a conversation, settling r1")
	_, found, reserveErr, err = begin(kind, reservation(a, "r3", 800))
	r.truef(err == nil && found, "BeginRun of a refused reservation's document: found %v, %v", found, err)
	r.exceeded(reserveErr, storage.WindowDay, "tokens", "BeginRun reserving 800 after 300 spent")
	u = usage("BudgetUsage after refusals")
	r.truef(u.LiveRuns == 0 && u.Reserved.Tokens == 0 && u.Windows[0].Spent.Tokens == 300, "refusals changed the budget: %+v", u)

	// The reservation is made when the document is missing, and another tenant's is its own.
	_, found, reserveErr, err = begin(r.kind(other, "agent"), reservation(other, "r1", 5000))
	r.truef(err == nil && !found, "BeginRun of another tenant's missing document: found %v, %v", found, err)
	r.ok(reserveErr, "BeginRun of another tenant without a budget")
	u = usage("BudgetUsage of a after b's reservation")
	r.truef(u.LiveRuns == 0 && u.Reserved.Tokens == 0, "another tenant's reservation is in a's budget: %+v", u)
	end = reservation(other, "r1", 0)
	end.End = true
	r.ok(sr.ReserveBudget(ctx, end), "ReserveBudget ending b's r1")

	_, _, _, err = begin("", reservation(a, "r4", 1))
	r.is(err, storage.ErrInvalid, "BeginRun of an empty kind")
	u = usage("BudgetUsage after an invalid BeginRun")
	r.truef(u.LiveRuns == 0 && u.Reserved.Tokens == 0, "an invalid BeginRun reserved: %+v", u)
	_, err = r.runs.EndRun(ctx, storage.RunEnd{Settle: []storage.BudgetReservation{reservation(a, "r5", 1)}})
	r.is(err, storage.ErrInvalid, "EndRun without a conversation of a settlement that is not an end")
}

// endRun ends the run of claim c with entries, settling ends.
func (r *rec) endRun(c storage.Claim, ends []storage.BudgetReservation, entries ...storage.Entry) ([]storage.Entry, error) {
	return r.runs.EndRun(r.ctx, storage.RunEnd{Claim: c, Entries: entries, Settle: ends})
}
