package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// leaseKeeper renews the claims of a host's live runs, all of them together every third of the lease: one
// RenewRuns call per tick (storage.RunStore; one Renew per claim for a store that has only the basic methods). A run is kept from the moment it claims its conversation until it releases it, or
// until finishTimeout after its context ended; a run whose claim is lost is cancelled with the loss as the cause,
// and stores nothing more.
type leaseKeeper struct {
	mu      sync.Mutex
	store   storage.RunStore
	ttl     time.Duration
	runs    map[*conversationRun]struct{}
	running bool // the renewing goroutine runs; it ends at a tick that finds no run
}

// add keeps c's claim from now on, starting the renewing goroutine when it does not run.
func (k *leaseKeeper) add(c *conversationRun) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.runs == nil {
		k.runs = map[*conversationRun]struct{}{}
		k.store, k.ttl = c.runs, c.lease.ttl
	}
	k.runs[c] = struct{}{}
	if !k.running {
		k.running = true
		go k.loop()
	}
}

// remove stops keeping c's claim.
func (k *leaseKeeper) remove(c *conversationRun) {
	k.mu.Lock()
	delete(k.runs, c)
	k.mu.Unlock()
}

func (k *leaseKeeper) loop() {
	t := time.NewTicker(k.ttl / 3)
	defer t.Stop()
	for range t.C {
		k.mu.Lock()
		if len(k.runs) == 0 {
			k.running = false
			k.mu.Unlock()
			return
		}
		runs := make([]*conversationRun, 0, len(k.runs))
		for c := range k.runs {
			if !c.ctl.overdue() {
				runs = append(runs, c)
			}
		}
		k.mu.Unlock()
		k.renew(runs)
	}
}

// renew renews the claims of runs once. A failure that is not a lost claim passes: the next tick tries again,
// and the store refuses to append once a lease has expired.
func (k *leaseKeeper) renew(runs []*conversationRun) {
	// Half the lease: a slow renewal still lands before the lease ends, and the ticks it overlaps are dropped.
	ctx, cancel := context.WithTimeout(context.Background(), k.ttl/2)
	defer cancel()
	claims := make([]storage.Claim, len(runs))
	for i, c := range runs {
		claims[i] = c.currentClaim()
	}
	res, err := k.store.RenewRuns(ctx, claims, k.ttl)
	if err != nil || len(res) != len(runs) {
		return
	}
	for i, r := range res {
		runs[i].renewed(r.Claim, r.Err)
	}
}

// lease is a run's claim on its conversation: taken, renewed with the host's other runs' (leaseKeeper), lost or
// released.
//
//typeshift:owned
type lease struct {
	ttl    time.Duration
	keeper *leaseKeeper // renews the claim, with the host's other runs'

	mu        sync.Mutex // guards claim, which the renewal updates, lost, ending and lastEvent
	claim     storage.Claim
	claimHead int64 // the conversation's event head when claimed
	lastEvent int64 // the id of the run's last event, stored by the release
	lost      error // why the claim was lost; the run stores nothing after it
	// ending says the run is releasing its claim: a renewal that finds the claim gone from then on lost nothing,
	// and whether the claim held until the release is the release's own answer.
	ending bool
}

// current returns the claim as last renewed.
func (l *lease) current() storage.Claim {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.claim
}

// currentClaim returns the run's claim as last renewed.
func (c *conversationRun) currentClaim() storage.Claim { return c.lease.current() }

// took records the claim the run took, and what it says of the conversation's events.
func (c *conversationRun) took(claim storage.Claim) {
	c.lease.claim, c.lease.claimHead = claim, claim.EventHead
	if claim.Watched {
		c.watches.elsewhere.watched.Store(true)
	}
}

// releasing returns the claim to release, with the id of the run's last event for the store to keep; l.mu is
// held.
func (l *lease) releasing() storage.Claim {
	claim := l.claim
	claim.EventHead = max(claim.EventHead, l.lastEvent, l.claimHead)
	return claim
}

// forStore returns the claim to store under, or why it was lost; with release, the claim to release, and the
// run is ending from then on unless the claim is lost.
func (l *lease) forStore(release bool) (storage.Claim, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	claim := l.claim
	if release {
		claim = l.releasing()
		l.ending = l.lost == nil
	}
	return claim, l.lost
}

// end marks the run as ending and returns the claim to release, or why it was lost.
func (l *lease) end() (storage.Claim, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	claim := l.releasing()
	l.ending = true
	return claim, l.lost
}

// lastEventIs records the id of the run's last event, which the release keeps for the next run.
func (l *lease) lastEventIs(id int64) {
	l.mu.Lock()
	l.lastEvent = id
	l.mu.Unlock()
}

// renewed takes the outcome of renewing the run's claim.
func (c *conversationRun) renewed(claim storage.Claim, err error) {
	l := &c.lease
	switch {
	case err == nil:
		l.mu.Lock()
		if claim.Token == l.claim.Token {
			l.claim = claim
		}
		l.mu.Unlock()
	case errors.Is(err, storage.ErrClaimLost):
		l.mu.Lock()
		ending := l.ending
		l.mu.Unlock()
		if ending {
			return // a renewal in flight while the run released its claim
		}
		c.lose(&ConversationError{ConversationID: c.id, Op: "renewing the lease", Err: err})
	}
}

// lose records that the run's claim is lost and cancels the run with err as the cause: another run may own the
// conversation now. From then on the run stores nothing (see store1).
func (c *conversationRun) lose(err error) {
	l := &c.lease
	l.mu.Lock()
	if l.lost == nil {
		l.lost = err
	}
	l.mu.Unlock()
	l.keeper.remove(c)
	c.ctl.cancelWith(err) // a run that has not begun finds the loss when it begins
}

// lostClaim returns why the claim was lost, or nil.
func (l *lease) lostClaim() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// claimed is a conversation claimed, and loaded, before the run's settings were resolved, with the agent's stored
// settings read in the same round trip (storage.RunStore's BeginRun).
type claimed struct {
	c            *conversationRun
	entries      []storage.Entry
	loadErr      error
	settingsRead bool
	doc          *storage.Document // nil: the tenant has no document
	settingsErr  error
}

// claimFirst claims the run's conversation, loads it and reads the agent's stored settings when they come from the
// store, in one round trip (BeginRun); openConversation goes on from there. A run without a conversation, or one
// openConversation refuses, claims nothing here.
func (h *Host) claimFirst(ctx context.Context, st *runState, input []chat.Message) (*claimed, error) {
	ri := &st.ask.input
	if h.runs == nil || ri.conversationID == "" || ri.settingsID == "" || len(ri.history) > 0 || checkConversationInput(input) != nil {
		return nil, nil
	}
	var kinds []string
	if h.storeSettings {
		kinds = []string{h.decl.SettingsKind}
	}
	c, err := h.newConversationRun(ctx, st, h.leaseTTL())
	if err != nil {
		return nil, err
	}
	got, err := h.runs.BeginRun(ctx, storage.RunBegin{SettingsID: c.settingsID, ConversationID: c.id, Owner: h.owner(),
		TTL: c.lease.ttl, Kinds: kinds})
	if got.Claim.Token == "" {
		c.watches.stop()
		return nil, &ConversationError{ConversationID: c.id, Op: "claiming the conversation", Err: err}
	}
	c.took(got.Claim)
	c.lease.keeper.add(c)
	p := &claimed{c: c, entries: got.Entries, settingsRead: h.storeSettings}
	if err != nil {
		if _, bad := errors.AsType[*storage.CorruptSettingsError](err); bad {
			p.settingsErr = err
		} else {
			p.loadErr = err
		}
	}
	if d, ok := got.Settings[h.decl.SettingsKind]; ok {
		p.doc = &d
	}
	return p, nil
}

// settings returns the agent's stored settings: those claimFirst read, or what Config.Settings gives.
func (p *claimed) settings(ctx context.Context, h *Host, settingsID string) (json.RawMessage, error) {
	if p == nil || !p.settingsRead {
		return h.cfg.Settings.Settings(ctx, settingsID, h.decl.SettingsKind)
	}
	if p.settingsErr != nil || p.doc == nil {
		return nil, p.settingsErr
	}
	return p.doc.Data, nil
}

// drop releases a claim claimFirst took for a run that will not start.
func (p *claimed) drop() {
	if p != nil {
		_ = p.c.close()
	}
}

// newConversationRun returns the run's hold on its conversation, not yet claimed, following the store's steering
// signals already: watching before claiming means that every steering input accepted under the claim signals
// the run. Input queued under an earlier run's claim that crashed is in the conversation once the claim succeeds.
func (h *Host) newConversationRun(ctx context.Context, st *runState, ttl time.Duration) (*conversationRun, error) {
	c := &conversationRun{h: h, st: st, store: h.cfg.Store, runs: h.runs, settingsID: st.ask.input.settingsID, id: st.ask.input.conversationID,
		lease: lease{ttl: ttl, keeper: &h.leases}, watches: newWatches()}
	if err := c.watchSteering(ctx); err != nil {
		return nil, &ConversationError{ConversationID: c.id, Op: "watching for steering input", Err: err}
	}
	if err := c.watchWatchers(ctx); err != nil {
		c.watches.stop()
		return nil, &ConversationError{ConversationID: c.id, Op: "watching for watchers", Err: err}
	}
	return c, nil
}

// claimConversation returns the run's claimed conversation, and its entries: the one claimFirst claimed, or one
// claimed and loaded now (BeginRun). The claim is renewed from now on; loadErr is the load's error, err the
// claim's.
func (h *Host) claimConversation(ctx context.Context, st *runState, ttl time.Duration, claimed *claimed) (c *conversationRun, entries []storage.Entry, loadErr, err error) {
	if p := claimed; p != nil {
		return p.c, p.entries, p.loadErr, nil
	}
	if c, err = h.newConversationRun(ctx, st, ttl); err != nil {
		return nil, nil, nil, err
	}
	got, loadErr := h.runs.BeginRun(ctx, storage.RunBegin{SettingsID: c.settingsID, ConversationID: c.id, Owner: h.owner(), TTL: ttl})
	if got.Claim.Token == "" {
		c.watches.stop()
		return nil, nil, nil, &ConversationError{ConversationID: c.id, Op: "claiming the conversation", Err: loadErr}
	}
	c.took(got.Claim)
	c.lease.keeper.add(c) // from the claim on: loading may wait for a busy pool
	return c, got.Entries, loadErr, nil
}
