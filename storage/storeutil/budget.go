package storeutil

import (
	"math"

	"github.com/typeshift-go/typeshift/storage"
)

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
