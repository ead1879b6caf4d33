package storeutil_test

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

func TestWindowCaps(t *testing.T) {
	is := is.New(t)
	tokens, cost, negative := int64(100), 1.5, -1.0
	limits := storage.BudgetLimits{
		Day:   &storage.BudgetLimit{Tokens: &tokens},
		Month: &storage.BudgetLimit{Cost: &cost},
		Run:   &storage.BudgetLimit{Cost: &negative},
	}
	for _, tt := range []struct {
		window        string
		tokens, nanos int64
	}{
		{storage.WindowDay, 100, -1},
		{storage.WindowMonth, -1, 1_500_000_000},
		{storage.WindowConversation, -1, -1}, // no limit set
		{storage.WindowRun, -1, -1},          // a negative cap is none
		{storage.WindowLiveRuns, -1, -1},     // not a spending window
	} {
		gotTokens, gotNanos := storeutil.WindowCaps(limits, tt.window)
		is.Equal(gotTokens, tt.tokens)
		is.Equal(gotNanos, tt.nanos)
	}
}

func TestParseBudgetLimits(t *testing.T) {
	is := is.New(t)
	l, err := storeutil.ParseBudgetLimits([]byte(`{"day":{"tokens":10},"live_runs":2}`))
	is.NoErr(err)
	is.Equal(*l.Day.Tokens, int64(10))
	is.Equal(*l.LiveRuns, int64(2))
	for _, data := range []string{`[]`, `{"month":{"cost":1e10}}`, `{"run":{"tokens":"ten"}}`} {
		_, err := storeutil.ParseBudgetLimits([]byte(data))
		is.True(errors.Is(err, storage.ErrInvalid)) // not a budget document
	}
}
