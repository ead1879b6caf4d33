// Package watch tells the watchers of a conversation in one process that
// something happened to it, and follows a conversation's stored events. The
// memory store signals directly; the Postgres store signals from LISTEN.
//
// A signal carries nothing: whoever receives one reads what the store holds,
// under the tenant it watches. A forged or repeated signal makes a reader
// look once and find nothing new.
package watch

import (
	"context"
	"sync"
)

// Key names a conversation of a tenant.
type Key struct{ SettingsID, ConversationID string }

type watcher struct {
	ch     chan struct{}
	closed bool
}

// Hub holds the watchers of each conversation. The zero value is ready.
type Hub struct {
	mu       sync.Mutex
	watchers map[Key]map[*watcher]struct{}
	count    int
}

// Subscribe registers a watcher of key until ctx ends, and returns the
// channel its signals arrive on, closed when ctx ends. Signals are
// coalesced: one waiting signal stands for any number. onDone, if not nil,
// runs after the watcher is removed, with the number of watchers left.
func (h *Hub) Subscribe(ctx context.Context, key Key, onDone func(left int)) <-chan struct{} {
	w := &watcher{ch: make(chan struct{}, 1)}
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

// Has reports whether key has a watcher, so a signaller can skip work.
func (h *Hub) Has(key Key) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers[key]) > 0
}

// Signal tells every watcher of key that something happened. It never
// blocks.
func (h *Hub) Signal(key Key) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers[key] {
		w.signal()
	}
}

// SignalAll signals every watcher of every conversation, as after signals
// may have been missed.
func (h *Hub) SignalAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.watchers {
		for w := range set {
			w.signal()
		}
	}
}

func (w *watcher) signal() {
	if w.closed {
		return
	}
	select {
	case w.ch <- struct{}{}:
	default: // one is waiting already
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
