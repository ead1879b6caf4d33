package storeutil

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/typeshift-go/typeshift/storage"
)

// ParseBudgetLimits reads a budget document's data; it reports [storage.ErrInvalid] for data that is not one.
func ParseBudgetLimits(data []byte) (storage.BudgetLimits, error) {
	var l storage.BudgetLimits
	if err := json.Unmarshal(data, &l); err != nil {
		return storage.BudgetLimits{}, fmt.Errorf("storage: budget: %v: %w", err, storage.ErrInvalid)
	}
	for _, w := range []*storage.BudgetLimit{l.Day, l.Month, l.Conversation, l.Run} {
		if w != nil && w.Cost != nil && (math.IsNaN(*w.Cost) || math.IsInf(*w.Cost, 0) || *w.Cost > 9e9) {
			return storage.BudgetLimits{}, fmt.Errorf("storage: budget: cost %v: %w", *w.Cost, storage.ErrInvalid)
		}
	}
	return l, nil
}

// WindowCaps returns the token and cost caps (cost in billionths of the currency) that limits set on window w
// (storage.WindowDay, WindowMonth, WindowConversation or WindowRun); -1 means none.
func WindowCaps(limits storage.BudgetLimits, w string) (tokens, nanos int64) {
	var b *storage.BudgetLimit
	switch w {
	case storage.WindowDay:
		b = limits.Day
	case storage.WindowMonth:
		b = limits.Month
	case storage.WindowConversation:
		b = limits.Conversation
	case storage.WindowRun:
		b = limits.Run
	}
	tokens, nanos = -1, -1
	if b == nil {
		return
	}
	if b.Tokens != nil && *b.Tokens >= 0 {
		tokens = *b.Tokens
	}
	if b.Cost != nil && *b.Cost >= 0 {
		nanos = int64(math.Round(*b.Cost * 1e9))
	}
	return
}
