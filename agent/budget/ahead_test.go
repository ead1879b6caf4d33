package budget_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/storage"
)

// tunable is an agent whose output cap its stored settings may change.
type tunable struct{ agent.Agent }

func (a *tunable) Declare() {
	a.WithName("tunable")
	a.WithModel("openai", "gpt-4.1-mini")
	a.WithMaxTokens(1000).Configurable()
}

// budgetStore is a store that reads settings and reserves in one step.
type budgetStore interface {
	storage.Store
	storage.Budgeter
	storage.RunStore
}

// countingStore counts the reservations sent on their own, beside the settings reads.
type countingStore struct {
	budgetStore
	reserves atomic.Int64
}

func (s *countingStore) ReserveBudget(ctx context.Context, r storage.BudgetReservation) error {
	s.reserves.Add(1)
	return s.budgetStore.ReserveBudget(ctx, r)
}

// EndRun counts the settlements of a run without a conversation: a round trip of their own, as ReserveBudget's.
func (s *countingStore) EndRun(ctx context.Context, e storage.RunEnd) ([]storage.Entry, error) {
	if e.Claim.Token == "" {
		s.reserves.Add(int64(len(e.Settle)))
	}
	return s.budgetStore.EndRun(ctx, e)
}

// TestFirstCallReservedWithTheSettingsRead runs one model call without a conversation under a budget: the call is
// reserved with the run's settings read, and sends no reservation of its own when its request fits what was
// reserved, one when the stored settings make it larger. In every case the run's end settles what it used and
// frees its place, also when the run fails before its call or the reservation is refused.
func TestFirstCallReservedWithTheSettingsRead(t *testing.T) {
	eachStore(t, func(t *testing.T, s storage.Store) {
		store := &countingStore{budgetStore: s.(budgetStore)}
		for _, tc := range []struct {
			name     string
			settings string // the agent's stored settings, or ""
			budget   string
			reserves int64 // the reservations sent on their own: the end, and the first call's when it does not fit
			spent    int64
			fails    func(error) bool // what the run fails with, or nil
		}{
			{"no settings", "", `{"day": {"tokens": 100000}}`, 1, 1100, nil},
			{"smaller output cap", `{"max_tokens": 500}`, `{"day": {"tokens": 100000}}`, 1, 1100, nil},
			{"larger output cap", `{"max_tokens": 4000}`, `{"day": {"tokens": 100000}}`, 2, 1100, nil},
			{"settings that fail the run", `{"max_tokens": "many"}`, `{"day": {"tokens": 100000}}`, 1, 0, func(err error) bool { _, ok := errors.AsType[*agent.SettingsError](err); return ok }},
			// Refused ahead, the call asks again for itself: what was refused may have been more than it needs.
			{"refused", "", `{"day": {"tokens": 10}}`, 2, 0, func(err error) bool { return errors.Is(err, budget.ErrBudgetExceeded) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				ctx := t.Context()
				tenant := "ahead-" + tc.name
				putBudget(t, store, tenant, tc.budget)
				if tc.settings != "" {
					_, err := store.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "tunable", SchemaVersion: 1, Data: json.RawMessage(tc.settings)}, 0)
					is.NoErr(err)
				}
				meter := budget.New(&budget.Options{Store: store})
				h, err := agent.NewHost(&tunable{}, agent.Config{Client: fixedUsage("gpt-4.1-mini"), Store: store, Meter: meter, LeaseTTL: time.Hour})
				is.NoErr(err)
				before := store.reserves.Load()
				_, err = h.Run(ctx, agent.Text("go"), agent.SettingsID(tenant))
				if tc.fails != nil {
					is.True(tc.fails(err)) // the run fails as it would without the reservation ahead
				} else {
					is.NoErr(err)
				}
				is.Equal(store.reserves.Load()-before, tc.reserves)
				u, err := meter.Usage(ctx, tenant, "")
				is.NoErr(err)
				is.Equal(u.LiveRuns, int64(0)) // not an hour from now
				is.Equal(u.Reserved, storage.BudgetSpend{})
				is.Equal(u.Windows[0].Spent.Tokens, tc.spent)
			})
		}
	})
}
