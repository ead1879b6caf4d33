// Package watch fans the events of a conversation out to its watchers in one
// process. The memory store publishes into it directly; the Postgres store
// feeds it from LISTEN.
package watch

import (
	"context"
	"sync"
)

// Buffer is how many events a watcher may fall behind before it is closed.
// Closing (instead of blocking the publisher or dropping events silently)
// tells the watcher it missed something: it can reload and watch again.
const Buffer = 256

// Key names a conversation of a tenant.
type Key struct{ SettingsID, ConversationID string }

type watcher struct {
	ch     chan []byte
	closed bool
}

// Hub holds the watchers of each conversation. The zero value is ready.
type Hub struct {
	mu       sync.Mutex
	watchers map[Key]map[*watcher]struct{}
	count    int
}

// Subscribe registers a watcher of key until ctx ends; onDone, if not nil,
// runs after the watcher is removed, with the number of watchers left.
func (h *Hub) Subscribe(ctx context.Context, key Key, onDone func(left int)) <-chan []byte {
	w := &watcher{ch: make(chan []byte, Buffer)}
	h.mu.Lock()
	if h.watchers == nil {
		h.watchers = make(map[Key]map[*watcher]struct{})
	}
	set := h.watchers[key]
	if set == nil {
		set = make(map[*watcher]struct{})
		h.watchers[key] = set
	}
	set[w] = struct{}{}
	h.count++
	h.mu.Unlock()

	go func() {
		<-ctx.Done()
		h.mu.Lock()
		h.remove(key, w)
		left := h.count
		h.mu.Unlock()
		if onDone != nil {
			onDone(left)
		}
	}()
	return w.ch
}

// remove unregisters w and closes its channel; h.mu is held.
func (h *Hub) remove(key Key, w *watcher) {
	set := h.watchers[key]
	if _, ok := set[w]; !ok {
		return
	}
	delete(set, w)
	if len(set) == 0 {
		delete(h.watchers, key)
	}
	h.count--
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
}

// Len returns the number of watchers of every conversation.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count
}

// Has reports whether key has a watcher, so a publisher can skip work.
func (h *Hub) Has(key Key) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers[key]) > 0
}

// Publish hands event to every watcher of key. It never blocks: a watcher
// whose buffer is full is closed. The event must not be changed afterwards;
// watchers share it.
func (h *Hub) Publish(key Key, event []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers[key] {
		if w.closed {
			continue
		}
		select {
		case w.ch <- event:
		default:
			// Too far behind: close it now; the ctx goroutine unregisters it.
			w.closed = true
			close(w.ch)
		}
	}
}

// CloseAll closes every watcher's channel, as when a store shuts down.
func (h *Hub) CloseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.watchers {
		for w := range set {
			if !w.closed {
				w.closed = true
				close(w.ch)
			}
		}
	}
}
