package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// BenchmarkPublish stores one small event and notifies its id: what each update of a streaming run costs.
func BenchmarkPublish(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	event := []byte(`{"kind":"update","update":{"message":{"role":"assistant","parts":[{"type":"text","text":"hello "}]}}}`)
	for b.Loop() {
		if _, err := s.Publish(ctx, "t", "c", event); err != nil {
			b.Fatal(err)
		}
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
	for b.Loop() {
		if _, err := s.Publish(ctx, "t", "c", []byte(`{}`)); err != nil {
			b.Fatal(err)
		}
		if _, ok := <-ch; !ok {
			b.Fatal("watch closed")
		}
	}
}
