// Package budgetcalc holds what the stores that keep budgets share to judge them alike: the tenant's limits over the
// application's defaults, and the keys and reset times of the day and month windows.
package budgetcalc

import (
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Over returns l with the fields o sets replaced by o's: a tenant's document over the application's defaults.
func Over(l, o storage.BudgetLimits) storage.BudgetLimits {
	w := func(a, b *storage.BudgetLimit) *storage.BudgetLimit {
		if b == nil {
			return a
		}
		if a == nil {
			return b
		}
		c := *a
		if b.Tokens != nil {
			c.Tokens = b.Tokens
		}
		if b.Cost != nil {
			c.Cost = b.Cost
		}
		return &c
	}
	l.Day, l.Month, l.Conversation, l.Run = w(l.Day, o.Day), w(l.Month, o.Month), w(l.Conversation, o.Conversation), w(l.Run, o.Run)
	if o.LiveRuns != nil {
		l.LiveRuns = o.LiveRuns
	}
	return l
}

// Windows returns the keys and reset times of the day and month windows at t (in UTC).
func Windows(t time.Time) (dayKey string, dayReset time.Time, monthKey string, monthReset time.Time) {
	t = t.UTC()
	y, m, d := t.Date()
	return t.Format("2006-01-02"), time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC),
		t.Format("2006-01"), time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}
