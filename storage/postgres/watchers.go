package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage/internal/watch"
)

// watching keeps the rows that say this store's instance watches a conversation: one row per conversation
// whatever the number of local watchers, written when the first starts, renewed while any lasts, and deleted
// after the last.
type watching struct {
	mu    sync.Mutex
	convs map[watch.Key]*watched
	wg    sync.WaitGroup
}

type watched struct {
	n     int           // local watchers
	ready chan struct{} // closed once the first write is done
	err   error         // of the first write
	stop  chan struct{} // closed after the last watcher
}

// setWatching writes (on) or deletes (off) the instance's row for a conversation.
type setWatching func(ctx context.Context, on bool) error

// add counts a watcher of key until ctx ends. The first watcher of a conversation writes the row before add
// returns, so that a run claiming the conversation after the Watch returned sees it.
func (w *watching) add(ctx context.Context, key watch.Key, set setWatching) error {
	w.mu.Lock()
	if w.convs == nil {
		w.convs = map[watch.Key]*watched{}
	}
	c := w.convs[key]
	first := c == nil
	if first {
		c = &watched{ready: make(chan struct{}), stop: make(chan struct{})}
		w.convs[key] = c
	}
	c.n++
	w.mu.Unlock()

	if first {
		c.err = set(ctx, true)
		close(c.ready)
		if c.err == nil {
			w.wg.Add(1)
			go w.renew(c, set)
		}
	} else {
		select {
		case <-c.ready:
		case <-ctx.Done():
		}
	}
	if c.err != nil || ctx.Err() != nil {
		w.done(key, c)
		if c.err != nil {
			return c.err
		}
		return ctx.Err()
	}
	go func() {
		<-ctx.Done()
		w.done(key, c)
	}()
	return nil
}

// done counts a watcher out; after the last, the renewal stops and deletes the row.
func (w *watching) done(key watch.Key, c *watched) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c.n--
	if c.n == 0 {
		if w.convs[key] == c {
			delete(w.convs, key)
		}
		if c.err == nil {
			close(c.stop)
		}
	}
}

// renew rewrites the row every third of its life until the last watcher leaves, then deletes it. Failures are
// retried at the next tick: a row that expired meanwhile only means a run elsewhere that starts now does not
// publish until the next renewal's notification.
func (w *watching) renew(c *watched, set setWatching) {
	defer w.wg.Done()
	t := time.NewTicker(watcherTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
			_ = set(ctx, false)
			cancel()
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
			_ = set(ctx, true)
			cancel()
		}
	}
}

// wait waits for every renewal to end, after their watchers ended.
func (w *watching) wait() { w.wg.Wait() }
