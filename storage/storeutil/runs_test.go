package storeutil_test

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/storetest"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// onlyBasic is a store of the basic methods alone: no RunStore, no Budgeter.
type onlyBasic struct{ storage.Store }

// TestRuns: a store's own RunStore is returned as it is; a store of the basic methods gets one built from them,
// which reserves and settles only through a store that keeps budgets.
func TestRuns(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	m := memory.New()
	_, native := storeutil.Runs(m).(*memory.Store)
	is.True(native) // the memory store's own
	_, native = storeutil.Runs(storetest.Basic(m)).(*memory.Store)
	is.True(!native) // built from the basic methods

	runs := storeutil.Runs(onlyBasic{m})
	res := storage.BudgetReservation{SettingsID: "t", RunID: "r", TTL: time.Minute, Reserve: storage.BudgetSpend{Tokens: 1}}
	_, err := runs.BeginRun(ctx, storage.RunBegin{SettingsID: "t", Reserve: &res})
	is.True(errors.Is(err, storage.ErrInvalid)) // no budgets to reserve in
	got, err := runs.BeginRun(ctx, storage.RunBegin{SettingsID: "t", ConversationID: "c", Owner: "o", TTL: time.Minute})
	is.NoErr(err)
	end := res
	end.Reserve, end.End = storage.BudgetSpend{}, true
	_, err = runs.EndRun(ctx, storage.RunEnd{Claim: got.Claim, Entries: []storage.Entry{{Type: storage.EntryRunEnd}}, Settle: []storage.BudgetReservation{end}})
	is.True(errors.Is(err, storage.ErrInvalid)) // no budgets to settle in
	_, err = m.Append(ctx, got.Claim, storage.Entry{Type: storage.EntryInput})
	is.NoErr(err) // the refused end released nothing
	_, err = runs.EndRun(ctx, storage.RunEnd{Claim: got.Claim, Entries: []storage.Entry{{Type: storage.EntryRunEnd}}})
	is.NoErr(err)
	_, err = m.Claim(ctx, "t", "c", "next", time.Minute)
	is.NoErr(err) // released
}
