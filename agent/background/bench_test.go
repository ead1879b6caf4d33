package background_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// BenchmarkLocalQueueEnqueueToStart measures, per job, the time from Enqueue to its RunFunc starting on the
// in-process queue, jobs one after another.
func BenchmarkLocalQueueEnqueueToStart(b *testing.B) {
	store := memory.New()
	q := background.NewLocalQueue(store, "")
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = q.Work(ctx, func(context.Context, background.Job) (background.Outcome, error) {
			started <- struct{}{}
			return background.Outcome{Status: background.StatusSucceeded}, nil // no report: the queue alone
		})
	}()
	b.ReportAllocs()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		job := background.Job{ID: "bg_" + strconv.Itoa(i), SettingsID: "t", Agent: "A", Caller: background.Caller{ConversationID: "c"}}
		t0 := time.Now()
		if err := q.Enqueue(ctx, job, 0); err != nil {
			b.Fatal(err)
		}
		<-started
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/enqueue-to-start")
	cancel()
	<-done
}
