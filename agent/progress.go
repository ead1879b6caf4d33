package agent

import (
	"context"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// progressTo returns ctx with a progress reporter ([chat.ReportProgress]) that emits each report of the step's
// tools as an update of the stream, until stop is called. Reports come from the tools' goroutines, so they are
// emitted one at a time; reports after stop, from a tool abandoned at its timeout, are dropped, since the stream
// has moved on. A run that is not streamed gets no reporter.
func progressTo(ctx context.Context, emit emitFunc) (_ context.Context, stop func()) {
	if emit == nil {
		return ctx, func() {}
	}
	var mu sync.Mutex
	open := true
	ctx = chat.WithProgress(ctx, func(p chat.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if open && !emit(chat.Update{Role: chat.RoleTool, Progress: &p}) {
			open = false // the reader stopped: the loop finds out at its next update
		}
	})
	return ctx, func() {
		mu.Lock()
		open = false
		mu.Unlock()
	}
}
