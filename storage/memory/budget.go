package memory

import (
	"context"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/budgetcalc"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

var _ storage.Budgeter = (*Store)(nil)

// budgetRun is a run that holds a place in its tenant's budget: what it spent and what its call in flight may.
type budgetRun struct {
	conversationID, token string
	expires               time.Time
	spent, reserved       storage.BudgetSpend
}

type budgetWindowKey struct{ settingsID, window, key string }

type budgetWindow struct {
	spent    storage.BudgetSpend
	unpriced int64
}

// budgets is the state of the tenants' budgets; s.mu guards it.
type budgets struct {
	runs    map[string]map[string]*budgetRun // by tenant, then run id
	windows map[budgetWindowKey]*budgetWindow
}

// liveBudgetRun reports whether r still holds its place: its conversation's claim is live, or, without one, its
// reservation has not expired. s.mu is held.
func (s *Store) liveBudgetRun(settingsID string, r *budgetRun, now time.Time) bool {
	if now.Before(r.expires) {
		return true
	}
	if r.token == "" {
		return false
	}
	c := s.conversations[watch.Key{SettingsID: settingsID, ConversationID: r.conversationID}]
	return c != nil && c.lease.Token == r.token && now.Before(c.lease.ExpiresAt)
}

// budgetLimits returns the tenant's limits, its document over the defaults. s.mu is held.
func (s *Store) budgetLimits(settingsID string, defaults storage.BudgetLimits) (storage.BudgetLimits, error) {
	doc, ok := s.settings[docKey{settingsID, storage.BudgetKind}]
	if !ok {
		return defaults, nil
	}
	l, err := storeutil.ParseBudgetLimits(doc.Data)
	if err != nil {
		return storage.BudgetLimits{}, &storage.CorruptSettingsError{SettingsID: settingsID, Kind: storage.BudgetKind, Err: err}
	}
	return budgetcalc.Over(defaults, l), nil
}

func (s *Store) window(settingsID, window, key string) *budgetWindow {
	k := budgetWindowKey{settingsID, window, key}
	w := s.budget.windows[k]
	if w == nil {
		w = &budgetWindow{}
		s.budget.windows[k] = w
	}
	return w
}

// ReserveBudget implements [storage.Budgeter], under the store's lock.
func (s *Store) ReserveBudget(ctx context.Context, r storage.BudgetReservation) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storeutil.CheckBudgetReservation(r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserveLocked(r)
}

// reserveLocked is ReserveBudget of r, checked; s.mu is held.
func (s *Store) reserveLocked(r storage.BudgetReservation) error {
	if s.budget.runs == nil {
		s.budget.runs = make(map[string]map[string]*budgetRun)
		s.budget.windows = make(map[budgetWindowKey]*budgetWindow)
	}
	now := s.clock()
	dayKey, dayReset, monthKey, monthReset := budgetcalc.Windows(now)
	runs := s.budget.runs[r.SettingsID]
	if runs == nil {
		runs = make(map[string]*budgetRun)
		s.budget.runs[r.SettingsID] = runs
	}
	run := runs[r.RunID]

	// The previous call's settlement stands whatever happens next.
	if st := r.Settle; st.Tokens > 0 || st.Nanos > 0 || st.Unpriced {
		keys := [][2]string{{storage.WindowDay, dayKey}, {storage.WindowMonth, monthKey}}
		if r.ConversationID != "" {
			keys = append(keys, [2]string{storage.WindowConversation, r.ConversationID})
		}
		for _, k := range keys {
			w := s.window(r.SettingsID, k[0], k[1])
			w.spent.Tokens += st.Tokens
			w.spent.Nanos += st.Nanos
			if st.Unpriced {
				w.unpriced++
			}
		}
		if run != nil {
			run.spent.Tokens += st.Tokens
			run.spent.Nanos += st.Nanos
		}
	}
	if run != nil {
		run.reserved = storage.BudgetSpend{}
	}
	if r.End {
		delete(runs, r.RunID)
		return nil
	}
	limits, err := s.budgetLimits(r.SettingsID, r.Defaults)
	if err != nil {
		return err
	}

	// What the tenant's other live runs hold; the dead ones are forgotten.
	var held, heldConv storage.BudgetSpend
	var live int64
	for id, o := range runs {
		if id == r.RunID {
			continue
		}
		if !s.liveBudgetRun(r.SettingsID, o, now) {
			delete(runs, id)
			continue
		}
		live++
		held.Tokens += o.reserved.Tokens
		held.Nanos += o.reserved.Nanos
		if r.ConversationID != "" && o.conversationID == r.ConversationID {
			heldConv.Tokens += o.reserved.Tokens
			heldConv.Nanos += o.reserved.Nanos
		}
	}
	refuse := func(e *storage.BudgetExceededError) error {
		e.SettingsID = r.SettingsID
		return e
	}
	if (run == nil || !s.liveBudgetRun(r.SettingsID, run, now)) && limits.LiveRuns != nil && *limits.LiveRuns >= 0 && live >= *limits.LiveRuns {
		return refuse(&storage.BudgetExceededError{Window: storage.WindowLiveRuns, Measure: "runs", Limit: *limits.LiveRuns, Used: live, Asked: 1})
	}
	type check struct {
		window string
		used   storage.BudgetSpend
		reset  time.Time
	}
	spentOf := func(window, key string) storage.BudgetSpend {
		if w := s.budget.windows[budgetWindowKey{r.SettingsID, window, key}]; w != nil {
			return w.spent
		}
		return storage.BudgetSpend{}
	}
	plus := func(a, b storage.BudgetSpend) storage.BudgetSpend {
		return storage.BudgetSpend{Tokens: a.Tokens + b.Tokens, Nanos: a.Nanos + b.Nanos}
	}
	checks := []check{
		{storage.WindowDay, plus(spentOf(storage.WindowDay, dayKey), held), dayReset},
		{storage.WindowMonth, plus(spentOf(storage.WindowMonth, monthKey), held), monthReset},
	}
	if r.ConversationID != "" {
		checks = append(checks, check{storage.WindowConversation, plus(spentOf(storage.WindowConversation, r.ConversationID), heldConv), time.Time{}})
	}
	var runSpent storage.BudgetSpend
	if run != nil {
		runSpent = run.spent
	}
	checks = append(checks, check{storage.WindowRun, runSpent, time.Time{}})
	for _, c := range checks {
		tokens, nanos := storeutil.WindowCaps(limits, c.window)
		if tokens >= 0 && c.used.Tokens+r.Reserve.Tokens > tokens {
			return refuse(&storage.BudgetExceededError{Window: c.window, Measure: "tokens", Limit: tokens, Used: c.used.Tokens, Asked: r.Reserve.Tokens, ResetAt: c.reset})
		}
		if nanos >= 0 && (r.Reserve.Unpriced || c.used.Nanos+r.Reserve.Nanos > nanos) {
			return refuse(&storage.BudgetExceededError{Window: c.window, Measure: "cost", Limit: nanos, Used: c.used.Nanos, Asked: r.Reserve.Nanos,
				Unpriced: r.Reserve.Unpriced, ResetAt: c.reset})
		}
	}
	if run == nil {
		run = &budgetRun{}
		runs[r.RunID] = run
	}
	run.conversationID, run.token = r.ConversationID, r.LeaseToken
	run.expires = now.Add(r.TTL)
	run.reserved = storage.BudgetSpend{Tokens: r.Reserve.Tokens, Nanos: r.Reserve.Nanos}
	return nil
}

// BudgetUsage implements [storage.Budgeter].
func (s *Store) BudgetUsage(ctx context.Context, settingsID, conversationID string, defaults storage.BudgetLimits) (storage.BudgetUsage, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.BudgetUsage{}, err
	}
	if err := storeutil.CheckDocumentKey(settingsID, storage.BudgetKind); err != nil {
		return storage.BudgetUsage{}, err
	}
	if err := storage.CheckText("conversation id", conversationID); err != nil {
		return storage.BudgetUsage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	limits, err := s.budgetLimits(settingsID, defaults)
	if err != nil {
		return storage.BudgetUsage{}, err
	}
	now := s.clock()
	dayKey, dayReset, monthKey, monthReset := budgetcalc.Windows(now)
	u := storage.BudgetUsage{Limits: limits}
	add := func(window, key string, reset time.Time) {
		wu := storage.WindowUsage{Window: window, Key: key, ResetAt: reset}
		if w := s.budget.windows[budgetWindowKey{settingsID, window, key}]; w != nil {
			wu.Spent, wu.UnpricedCalls = w.spent, w.unpriced
		}
		u.Windows = append(u.Windows, wu)
	}
	add(storage.WindowDay, dayKey, dayReset)
	add(storage.WindowMonth, monthKey, monthReset)
	if conversationID != "" {
		add(storage.WindowConversation, conversationID, time.Time{})
	}
	for _, o := range s.budget.runs[settingsID] {
		if s.liveBudgetRun(settingsID, o, now) {
			u.LiveRuns++
			u.Reserved.Tokens += o.reserved.Tokens
			u.Reserved.Nanos += o.reserved.Nanos
		}
	}
	return u, nil
}

// DeleteBudget implements [storage.Budgeter].
func (s *Store) DeleteBudget(ctx context.Context, settingsID string) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := storage.CheckIDs(settingsID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.budget.runs, settingsID)
	for k := range s.budget.windows {
		if k.settingsID == settingsID {
			delete(s.budget.windows, k)
		}
	}
	return nil
}

// reserveRead is BeginRun of a run without a conversation: the reservation and the reads under one lock.
func (s *Store) reserveRead(b storage.RunBegin) (storage.RunBegun, error) {
	var out storage.RunBegun
	s.mu.Lock()
	if b.Reserve != nil {
		out.ReserveErr = s.reserveLocked(*b.Reserve)
		out.Reserved = out.ReserveErr == nil
	}
	docs := make([]storage.Document, 0, len(b.Kinds))
	for _, k := range b.Kinds {
		if doc, ok := s.settings[docKey{b.SettingsID, k}]; ok {
			docs = append(docs, doc)
		}
	}
	s.mu.Unlock()
	for _, doc := range docs {
		if err := storeutil.CheckStoredDocument(doc, true); err != nil {
			return out, err
		}
		doc.Data = cloneBytes(doc.Data)
		if out.Settings == nil {
			out.Settings = map[string]storage.Document{}
		}
		out.Settings[doc.Kind] = doc
	}
	return out, nil
}
