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
// RenewLeases call per tick when the store is a [storage.LeaseRenewer] (the memory and Postgres stores are), one
// Renew per claim otherwise. A run is kept from the moment it claims its conversation until it releases it, or
// until finishTimeout after its context ended; a run whose claim is lost is cancelled with the loss as the cause,
// and stores nothing more.
type leaseKeeper struct {
	mu      sync.Mutex
	store   storage.ConversationStore
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
		k.store, k.ttl = c.store, c.ttl
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

// renewConcurrency bounds the Renew calls in flight for a store without RenewLeases.
const renewConcurrency = 16

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
			if !c.overdue() {
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
	if lr, ok := k.store.(storage.LeaseRenewer); ok {
		res, err := lr.RenewLeases(ctx, claims, k.ttl)
		if err != nil || len(res) != len(runs) {
			return
		}
		for i, r := range res {
			runs[i].renewed(r.Claim, r.Err)
		}
		return
	}
	sem := make(chan struct{}, renewConcurrency)
	var wg sync.WaitGroup
	for i, c := range runs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			renewed, err := k.store.Renew(ctx, claims[i], k.ttl)
			c.renewed(renewed, err)
		})
	}
	wg.Wait()
}

// overdue reports a run whose context ended longer ago than storing its end may take: a run stuck past its
// deadline (its stream's consumer stopped reading, say) is no longer renewed, so its claim expires and the
// conversation is free again; what the run stores later, the store refuses.
func (c *conversationRun) overdue() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.ctxDone.IsZero() && time.Since(c.ctxDone) > finishTimeout
}

// currentClaim returns the run's claim as last renewed.
func (c *conversationRun) currentClaim() storage.Claim {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claim
}

// took records the claim the run took, and what it says of the conversation's events.
func (c *conversationRun) took(claim storage.Claim) {
	c.claim, c.claimHead = claim, claim.EventHead
	if claim.Watched {
		c.watchedElsewhere.Store(true)
	}
}

// releasing returns the claim to release, with the id of the run's last event for the store to keep; c.mu is
// held.
func (c *conversationRun) releasing() storage.Claim {
	claim := c.claim
	claim.EventHead = max(claim.EventHead, c.lastEvent, c.claimHead)
	return claim
}

// renewed takes the outcome of renewing the run's claim.
func (c *conversationRun) renewed(claim storage.Claim, err error) {
	switch {
	case err == nil:
		c.mu.Lock()
		if claim.Token == c.claim.Token {
			c.claim = claim
		}
		c.mu.Unlock()
	case errors.Is(err, storage.ErrClaimLost):
		c.mu.Lock()
		ending := c.ending
		c.mu.Unlock()
		if ending {
			return // a renewal in flight while the run released its claim
		}
		c.lose(&ConversationError{ConversationID: c.id, Op: "renewing the lease", Err: err})
	}
}

// lose records that the run's claim is lost and cancels the run with err as the cause: another run may own the
// conversation now. From then on the run stores nothing (see append).
func (c *conversationRun) lose(err error) {
	c.mu.Lock()
	if c.lost == nil {
		c.lost = err
	}
	cancel := c.cancel
	c.mu.Unlock()
	c.keeper.remove(c)
	if cancel != nil {
		cancel(err)
	}
}

// lostClaim returns why the run's claim was lost, or nil.
func (c *conversationRun) lostClaim() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// claimed is a conversation claimed, and loaded, before the run's settings were resolved, with the agent's stored
// settings read in the same round trip ([storage.ClaimLoader]).
type claimed struct {
	c            *conversationRun
	entries      []storage.Entry
	loadErr      error
	settingsRead bool
	doc          *storage.Document // nil: the tenant has no document
	settingsErr  error
}

// claimFirst claims the run's conversation, loads it and reads the agent's stored settings in one round trip,
// when the store can and the run's settings come from it; openConversation goes on from there. Otherwise it does
// nothing, and openConversation claims, or refuses the run with nothing claimed.
func (h *Host) claimFirst(ctx context.Context, st *runState, input []chat.Message) (*claimed, error) {
	ri := &st.ask.input
	cl, ok := h.cfg.Store.(storage.ClaimLoader)
	if !ok || ri.conversationID == "" || ri.settingsID == "" || len(ri.history) > 0 || checkConversationInput(input) != nil {
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
	got, err := cl.ClaimLoad(ctx, c.settingsID, c.id, h.owner(), c.ttl, kinds...)
	if got.Claim.Token == "" {
		c.stopWatching()
		return nil, &ConversationError{ConversationID: c.id, Op: "claiming the conversation", Err: err}
	}
	c.took(got.Claim)
	c.keeper.add(c)
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

// leaseTTL is Config.LeaseTTL, or its default.
func (h *Host) leaseTTL() time.Duration {
	if h.cfg.LeaseTTL > 0 {
		return h.cfg.LeaseTTL
	}
	return DefaultLeaseTTL
}

// newConversationRun returns the run's hold on its conversation, not yet claimed, following the store's steering
// signals already: watching before claiming means that every steering input accepted under the claim signals
// the run. Input queued under an earlier run's claim that crashed is in the conversation once the claim succeeds.
func (h *Host) newConversationRun(ctx context.Context, st *runState, ttl time.Duration) (*conversationRun, error) {
	c := &conversationRun{h: h, st: st, store: h.cfg.Store, settingsID: st.ask.input.settingsID, id: st.ask.input.conversationID,
		ttl: ttl, stopped: make(chan struct{}), wake: make(chan struct{}, 1), keeper: &h.leases}
	if err := c.watchSteering(ctx); err != nil {
		return nil, &ConversationError{ConversationID: c.id, Op: "watching for steering input", Err: err}
	}
	if err := c.watchWatchers(ctx); err != nil {
		c.stopWatching()
		return nil, &ConversationError{ConversationID: c.id, Op: "watching for watchers", Err: err}
	}
	return c, nil
}

// claimConversation returns the run's claimed conversation: the one claimFirst claimed, or one claimed now, and
// loaded too when the store can do both in one round trip ([storage.ClaimLoader]): loaded tells, and loadErr is
// the load's error. The claim is renewed from now on; err is the claim's.
func (h *Host) claimConversation(ctx context.Context, st *runState, ttl time.Duration, claimed *claimed) (c *conversationRun, entries []storage.Entry, loaded bool, loadErr, err error) {
	if p := claimed; p != nil {
		return p.c, p.entries, true, p.loadErr, nil
	}
	if c, err = h.newConversationRun(ctx, st, ttl); err != nil {
		return nil, nil, false, nil, err
	}
	var claim storage.Claim
	if cl, ok := c.store.(storage.ClaimLoader); ok {
		got, err := cl.ClaimLoad(ctx, c.settingsID, c.id, h.owner(), ttl)
		claim, entries, loaded, loadErr = got.Claim, got.Entries, true, err
		if claim.Token == "" {
			c.stopWatching()
			return nil, nil, false, nil, &ConversationError{ConversationID: c.id, Op: "claiming the conversation", Err: err}
		}
	} else if claim, err = c.store.Claim(ctx, c.settingsID, c.id, h.owner(), ttl); err != nil {
		c.stopWatching()
		return nil, nil, false, nil, &ConversationError{ConversationID: c.id, Op: "claiming the conversation", Err: err}
	}
	c.took(claim)
	c.keeper.add(c) // from the claim on: loading may wait for a busy pool
	return c, entries, loaded, loadErr, nil
}

// stopWatching stops the steering watch of a run that did not get its claim.
func (c *conversationRun) stopWatching() {
	close(c.stopped)
	c.done.Wait()
}

// stamp marks entries with the run, the agent and the author, as they are when the step is taken, and mends
// what no store holds (storableEntries).
func (c *conversationRun) stamp(entries []storage.Entry) {
	for i := range entries {
		entries[i].RunID, entries[i].Agent = c.st.session.run.RunID, c.st.ask.name
		if entries[i].Author == "" {
			entries[i].Author = c.st.ask.name
		}
	}
	storableEntries(entries)
}

// queue keeps steps to be stored with the run's next store, which comes before its next model call, before an
// approved call runs, and at its end: a model response is stored with the tool results that answer it, the
// input with whatever comes first.
func (c *conversationRun) queue(entries ...storage.Entry) {
	c.stamp(entries)
	c.storeMu.Lock()
	c.pending = append(c.pending, entries...)
	c.storeMu.Unlock()
}

// hasPending reports whether steps wait to be stored.
func (c *conversationRun) hasPending() bool {
	c.storeMu.Lock()
	defer c.storeMu.Unlock()
	return len(c.pending) > 0
}

// store1 stores the queued steps and entries under the run's claim in one call, and with release, gives the
// claim up in it too when the store can ([storage.AppendReleaser]). A run whose claim is lost stores nothing.
// Steps that could not be stored stay queued, for the end of the run to try again.
func (c *conversationRun) store1(ctx context.Context, op string, release bool, entries []storage.Entry) error {
	c.stamp(entries)
	c.storeMu.Lock()
	defer c.storeMu.Unlock()
	c.mu.Lock()
	claim, lost := c.claim, c.lost
	if release {
		claim = c.releasing()
		c.ending = lost == nil
	}
	c.mu.Unlock()
	if lost != nil {
		return lost
	}
	all := entries
	if len(c.pending) > 0 {
		all = append(c.pending[:len(c.pending):len(c.pending)], entries...)
	}
	if len(all) == 0 {
		return nil
	}
	var err error
	if ar, ok := c.store.(storage.AppendReleaser); ok && release {
		_, err = ar.AppendRelease(ctx, claim, all...)
		c.released = err == nil
	} else {
		_, err = c.store.Append(ctx, claim, all...)
	}
	if err != nil {
		return &ConversationError{ConversationID: c.id, Op: op, Err: err}
	}
	c.pending = nil
	return nil
}
