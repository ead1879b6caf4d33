package watch

import (
	"context"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Batch is how many events a follower reads at once.
const Batch = 256

// Source reads a conversation's stored events, under its tenant.
type Source struct {
	// Head returns the id of the conversation's last event, 0 when it has none.
	Head func(ctx context.Context) (int64, error)
	// Read returns at most limit of the kept events with an id above after, in
	// order of id.
	Read func(ctx context.Context, after int64, limit int) ([]storage.Event, error)
}

// readFailures is how many reads in a row may fail before a follower gives up.
const readFailures = 5

// Follow returns the events of src after after (storage.WatchFromNow: after
// the last one now), reading again whenever signals has a value, until ctx
// ends or signals closes. Subscribe for signals before calling Follow, so
// that no event falls between the first read and the first signal. Ids may
// skip (runs publish only while watched, and events expire): whoever reads
// the channel decides what a gap means. The channel is closed early when
// reads keep failing. onEnd, if not nil, runs when the follower stops, before the
// channel is closed: pass the cancel function of ctx, so that a follower that
// stopped early leaves no subscription behind.
//
// With storage.WatchFromNow Follow reads the last id before it returns, so
// that every event published after it returned is followed; it returns the
// error of that read, after calling onEnd.
func Follow(ctx context.Context, signals <-chan struct{}, after int64, onEnd func(), src Source) (<-chan storage.Event, error) {
	if after < 0 {
		head, err := src.Head(ctx)
		if err != nil {
			if onEnd != nil {
				onEnd()
			}
			return nil, err
		}
		after = head
	}
	out := make(chan storage.Event, 16)
	go func() {
		defer close(out)
		if onEnd != nil {
			defer onEnd()
		}
		cursor := after
		failures := 0
		// retry waits before another attempt; it reports false when the follower should stop.
		retry := func() bool {
			failures++
			if failures >= readFailures || ctx.Err() != nil {
				return false
			}
			select {
			case <-ctx.Done():
				return false
			case <-time.After(time.Duration(failures) * 100 * time.Millisecond):
				return true
			}
		}
		for {
			evs, err := src.Read(ctx, cursor, Batch)
			if err != nil {
				if !retry() {
					return
				}
				continue
			}
			failures = 0
			for _, e := range evs {
				if e.ID <= cursor {
					continue
				}
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
				cursor = e.ID
			}
			if len(evs) == Batch {
				continue // there may be more
			}
			select {
			case <-ctx.Done():
				return
			case _, ok := <-signals:
				if !ok {
					return
				}
			}
		}
	}()
	return out, nil
}
