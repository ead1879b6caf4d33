package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// BenchmarkPublish stores a batch of coalesced events and notifies once: what a watched streaming run costs per
// batch its relay sends (one per event when the store keeps up, more per call when it lags).
func BenchmarkPublish(b *testing.B) {
	event := []byte(`{"kind":"update","update":{"message":{"role":"assistant","parts":[{"type":"text","text":"hello "}]}}}`)
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			s, _, _ := newStore(b)
			ctx := context.Background()
			var id int64
			batch := make([]storage.Event, n)
			for b.Loop() {
				for i := range batch {
					id++
					batch[i] = storage.Event{ID: id, Data: event}
				}
				if err := s.Publish(ctx, "t", "c", batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSteerTake queues one steering input and takes it in under the claim: the two round trips an accepted
// input costs, one on each side.
func BenchmarkSteerTake(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	c, err := s.Claim(ctx, "t", "c", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Steer(ctx, "t", "c", []byte(`[{"role":"user","parts":[{"type":"text","text":"also B"}]}]`)); err != nil {
			b.Fatal(err)
		}
		if got, err := s.TakeSteering(ctx, c, storage.Entry{RunID: "r", Agent: "a"}); err != nil || len(got) != 1 {
			b.Fatal(len(got), err)
		}
	}
}

// BenchmarkWatchDelivery publishes from one store and waits until a watcher on another store instance (another
// pool and LISTEN connection) has read the event: notification, then a read of the row under the tenant.
func BenchmarkWatchDelivery(b *testing.B) {
	s, pool, schema := newStore(b)
	other := openStore(b, pool, &postgres.Options{Channel: schema})
	b.Cleanup(other.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := other.Watch(ctx, "t", "c", storage.WatchFromNow)
	if err != nil {
		b.Fatal(err)
	}
	var id int64
	for b.Loop() {
		id++
		if err := s.Publish(ctx, "t", "c", []storage.Event{{ID: id, Data: []byte(`{}`)}}); err != nil {
			b.Fatal(err)
		}
		if _, ok := <-ch; !ok {
			b.Fatal("watch closed")
		}
	}
}
