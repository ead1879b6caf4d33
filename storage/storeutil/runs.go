package storeutil

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Runs returns the way of runs to s ([storage.RunStore]): s's own when it implements it, as the memory and
// Postgres stores do, and otherwise one built from s's basic methods, and from its ReserveBudget when s is a
// [storage.Budgeter]. Built from the basic methods, each step takes the round trips of the methods it calls:
// BeginRun a Claim, a Load and a GetSettings per kind; EndRun an Append, a ReserveBudget per settlement and a
// Release; RenewRuns a Renew per claim, sixteen at a time. Its EndRun is not all or nothing past the Append: a
// settlement or a release that fails after the entries were stored is reported, the entries kept.
func Runs(s storage.Store) storage.RunStore {
	if rs, ok := s.(storage.RunStore); ok {
		return rs
	}
	return basicRuns{s: s}
}

// basicRuns is a RunStore built from a store's basic methods.
type basicRuns struct {
	s storage.Store
}

func (r basicRuns) BeginRun(ctx context.Context, b storage.RunBegin) (storage.RunBegun, error) {
	var out storage.RunBegun
	if err := CheckRunBegin(b); err != nil {
		return out, err
	}
	if b.ConversationID == "" {
		if b.Reserve != nil {
			bg, ok := r.s.(storage.Budgeter)
			if !ok {
				return out, fmt.Errorf("storage: a reservation of a store that keeps no budgets: %w", storage.ErrInvalid)
			}
			out.ReserveErr = bg.ReserveBudget(ctx, *b.Reserve)
			out.Reserved = out.ReserveErr == nil
		}
		return out, r.read(ctx, b, &out)
	}
	c, err := r.s.Claim(ctx, b.SettingsID, b.ConversationID, b.Owner, b.TTL)
	if err != nil {
		return storage.RunBegun{}, err
	}
	out.Claim = c
	ctx = context.WithoutCancel(ctx) // the claim is taken: read what goes with it, for the caller to release it
	out.Entries, err = r.s.Load(ctx, b.SettingsID, b.ConversationID)
	if errors.Is(err, storage.ErrNotFound) {
		err = nil
	}
	if err != nil {
		return out, err
	}
	return out, r.read(ctx, b, &out)
}

// read reads the settings documents of b's kinds into out.
func (r basicRuns) read(ctx context.Context, b storage.RunBegin, out *storage.RunBegun) error {
	for _, k := range b.Kinds {
		doc, err := r.s.GetSettings(ctx, b.SettingsID, k)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue
		case err != nil:
			return err
		}
		if out.Settings == nil {
			out.Settings = map[string]storage.Document{}
		}
		out.Settings[k] = doc
	}
	return nil
}

// renewConcurrency bounds the Renew calls in flight of one RenewRuns.
const renewConcurrency = 16

func (r basicRuns) RenewRuns(ctx context.Context, cs []storage.Claim, ttl time.Duration) ([]storage.Renewal, error) {
	if err := CheckTTL(ttl); err != nil {
		return nil, err
	}
	out := make([]storage.Renewal, len(cs))
	sem := make(chan struct{}, renewConcurrency)
	var wg sync.WaitGroup
	for i, c := range cs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			renewed, err := r.s.Renew(ctx, c, ttl)
			if err != nil {
				renewed = c
			}
			out[i] = storage.Renewal{Claim: renewed, Err: err}
		})
	}
	wg.Wait()
	return out, nil
}

func (r basicRuns) EndRun(ctx context.Context, e storage.RunEnd) ([]storage.Entry, error) {
	if err := CheckRunEnd(e); err != nil {
		return nil, err
	}
	var bg storage.Budgeter
	if len(e.Settle) > 0 {
		var ok bool
		if bg, ok = r.s.(storage.Budgeter); !ok {
			return nil, fmt.Errorf("storage: settlements for a store that keeps no budgets: %w", storage.ErrInvalid)
		}
	}
	if e.Claim.Token == "" { // a run without a conversation
		var errs []error
		for _, end := range e.Settle {
			errs = append(errs, bg.ReserveBudget(ctx, end))
		}
		return []storage.Entry{}, errors.Join(errs...)
	}
	if len(e.Entries) == 0 {
		return []storage.Entry{}, r.s.Release(ctx, e.Claim)
	}
	out, err := r.s.Append(ctx, e.Claim, e.Entries...)
	if err != nil {
		return nil, err
	}
	ctx = context.WithoutCancel(ctx) // the entries are stored: end what goes with them
	var errs []error
	for _, end := range e.Settle {
		errs = append(errs, bg.ReserveBudget(ctx, end))
	}
	errs = append(errs, r.s.Release(ctx, e.Claim))
	return out, errors.Join(errs...)
}

func (r basicRuns) StoreSteering(ctx context.Context, settingsID, conversationID string, data []byte) error {
	return StoreSteering(ctx, r.s, settingsID, conversationID, "steering", data)
}

// StoreSteering stores data as steering input of the conversation whether or not a run holds it, as
// [storage.RunStore.StoreSteering] does: through s's own StoreSteering when s is a RunStore, in one step without
// claiming the conversation. Otherwise it steers the live run, and when none holds the conversation it claims
// it for a moment (as owner), steers and releases; a run that starts while it holds that claim fails as busy, as
// with any claim; one never claimed is ErrNotFound. A conversation that stays busy (a crashed run's lease that has not expired) is tried again
// until ctx ends.
func StoreSteering(ctx context.Context, s storage.ConversationStore, settingsID, conversationID, owner string, data []byte) error {
	if rs, ok := s.(storage.RunStore); ok {
		return rs.StoreSteering(ctx, settingsID, conversationID, data)
	}
	for attempt := 0; ; attempt++ {
		err := s.Steer(ctx, settingsID, conversationID, data)
		if !errors.Is(err, storage.ErrNotRunning) {
			return err
		}
		// A conversation never claimed is not the tenant's to report to: claiming it would create it.
		if _, err := s.EventRange(ctx, settingsID, conversationID); err != nil {
			return err
		}
		c, err := s.Claim(ctx, settingsID, conversationID, owner, 30*time.Second)
		if errors.Is(err, storage.ErrConversationBusy) {
			// A run took the conversation between the two steps (steer into it), or a crashed run's lease has
			// not expired yet (wait for it): try again, until ctx ends.
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (%w)", err, ctx.Err())
			case <-time.After(min(time.Duration(attempt+1)*10*time.Millisecond, time.Second)):
			}
			continue
		}
		if err != nil {
			return err
		}
		err = s.Steer(ctx, settingsID, conversationID, data)
		// Release moves the input into the conversation's entries; without it the next Claim does (after the
		// lease), so the input is kept either way once Steer accepted it.
		rerr := s.Release(context.WithoutCancel(ctx), c)
		if err != nil {
			return err
		}
		return rerr
	}
}

// CheckRunBegin checks what BeginRun is given; stores call it so they all reject alike.
func CheckRunBegin(b storage.RunBegin) error {
	for _, k := range b.Kinds {
		if err := CheckDocumentKey(b.SettingsID, k); err != nil {
			return err
		}
	}
	if b.ConversationID == "" {
		if err := storage.CheckIDs(b.SettingsID); err != nil {
			return err
		}
		if b.Reserve == nil {
			return nil
		}
		if b.Reserve.SettingsID != b.SettingsID {
			return fmt.Errorf("storage: a reservation of tenant %q for a run of %q: %w", b.Reserve.SettingsID, b.SettingsID, storage.ErrInvalid)
		}
		return CheckBudgetReservation(*b.Reserve)
	}
	if b.Reserve != nil {
		return fmt.Errorf("storage: a reservation with a conversation's claim: %w", storage.ErrInvalid)
	}
	if err := storage.CheckIDs(b.SettingsID, b.ConversationID); err != nil {
		return err
	}
	if err := CheckLeaseOwner(b.Owner); err != nil {
		return err
	}
	return CheckTTL(b.TTL)
}

// CheckRunEnd checks what EndRun is given; stores call it so they all reject alike.
func CheckRunEnd(e storage.RunEnd) error {
	if e.Claim.Token == "" && e.Claim.ConversationID == "" { // a run without a conversation: it only settles
		if len(e.Entries) > 0 {
			return fmt.Errorf("storage: entries without a claim: %w", storage.ErrInvalid)
		}
		for _, end := range e.Settle {
			if err := CheckBudgetReservation(end); err != nil {
				return err
			}
			if !end.End {
				return fmt.Errorf("storage: budget end of run %q: not an end: %w", end.RunID, storage.ErrInvalid)
			}
		}
		return nil
	}
	if err := CheckClaim(e.Claim); err != nil {
		return err
	}
	return CheckBudgetEnds(e.Claim, e.Settle, len(e.Entries))
}
