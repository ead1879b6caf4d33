package storage

import "sync"

// A Hub is where the hosts of one process that share a store meet in memory: the agent package keeps there the
// feeds of the conversations they run, so that a watcher reached through one host follows, from memory, the
// streaming runs of another. It is what lets the hosts find one another without comparing the store, which is a
// user's value and may be a struct that cannot be compared. The zero value is ready to use.
type Hub struct {
	once sync.Once
	v    any
}

// Value returns the hub's value, made by make on the first call.
func (h *Hub) Value(make func() any) any {
	h.once.Do(func() { h.v = make() })
	return h.v
}

// A HubStore is a store that gives the hosts sharing it a [Hub]: the same one for the store's lifetime. It saves
// nothing in the store; a store without it has its hosts keep their feeds each on their own, shared only among
// hosts joined by handoffs, so that a watcher of a conversation in this process must watch through the host that
// runs it (or the store must relay events, EventRelay).
type HubStore interface {
	Hub() *Hub
}
