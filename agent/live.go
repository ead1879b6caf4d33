package agent

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// A streaming run's updates reach the conversation's watchers as events: the run's text deltas coalesced over a
// short window (coalesceWindow, coalesceBytes), each event numbered after the conversation's last (the claim's
// storage.Claim.EventHead). Watchers in this process read them from the conversation's feed, in memory; when the
// store is a storage.EventRelay and another process watches, the run also publishes them there (relay.go). The
// run never waits for either: a feed is a bounded buffer, and publishing runs beside the run.

// coalesceWindow is the longest a text delta waits for the next before its event goes out, and coalesceBytes the
// most text one event gathers before it goes out at once.
const (
	coalesceWindow = 50 * time.Millisecond
	coalesceBytes  = 4 << 10
)

// feedEvents and feedBytes bound what a conversation's feed keeps; the oldest events go first. liveRetention is
// how long a feed nobody holds is kept, for a watcher in this process that reconnects after a run ended.
const (
	feedEvents = 4096
	feedBytes  = 4 << 20
)

var liveRetention = time.Minute // a variable for the package's tests

// liveEvent is one event of a conversation's feed.
type liveEvent struct {
	id    int64
	runID string
	// base is the conversation's event head when the run began: the run's events are numbered from base+1.
	base int64
	// u is the coalesced update; with end set, the event says the run ended, and err why it failed, if it did.
	u   chat.Update
	end bool
	err string
	// size approximates the event's memory, for the feed's bound.
	size int
}

// liveKey names a conversation of the store a registry's hosts share.
type liveKey struct {
	settingsID, conversationID string
}

// feedRegistry holds the feeds of the conversations that a group of hosts run and watch in this process. It
// belongs to the hosts, never to the package or to the store: a store is a user's value, which may be a struct
// that cannot be compared (a decorator with a func field), so nothing is keyed by it. Hosts joined by handoffs
// (Host.AddHandoffs) and those given to [ShareFeeds] share one registry.
type feedRegistry struct {
	mu    sync.Mutex
	convs map[liveKey]*feed
	// hosts are the hosts that share it, guarded by joinMu.
	hosts []*Host
}

// joinMu orders the joining of registries: a host's registry is read without it (Host.feeds).
var joinMu sync.Mutex

// feeds returns the registry of h's conversations' feeds.
func (h *Host) feeds() *feedRegistry { return h.hub.Load() }

// useFeeds gives h a registry of its own, until it is joined to others'.
func (h *Host) useFeeds() {
	h.hub.Store(&feedRegistry{hosts: []*Host{h}})
}

// ShareFeeds makes the hosts' runs and watchers share their conversations' feeds in this process, so that a
// watcher reached through any of them ([Host.Watch], [Host.WatchAfter]) follows, from memory, the streaming runs
// of all of them: give it the hosts of one process that share a store. Hosts joined by handoffs share them
// already; processes meet through the store's relay (storage.EventRelay), if it has one. Call it before the
// hosts' runs start: a watcher or a run live while it is called keeps the feed it holds.
func ShareFeeds(hosts ...*Host) {
	for i := 1; i < len(hosts); i++ {
		if hosts[0] != nil && hosts[i] != nil {
			joinFeeds(hosts[0], hosts[i])
		}
	}
}

// joinFeeds makes a and b, and every host that shares a registry with either, share one registry.
func joinFeeds(a, b *Host) {
	joinMu.Lock()
	defer joinMu.Unlock()
	ra, rb := a.feeds(), b.feeds()
	switch {
	case ra == rb:
		return
	case len(ra.hosts) < len(rb.hosts):
		ra, rb = rb, ra
	}
	for _, h := range rb.hosts {
		h.hub.Store(ra)
	}
	ra.hosts = append(ra.hosts, rb.hosts...)
	rb.hosts = nil
}

// acquire returns key's feed, made if need be, held until release.
func (r *feedRegistry) acquire(key liveKey) *feed {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.convs == nil {
		r.convs = map[liveKey]*feed{}
	}
	f := r.convs[key]
	if f == nil {
		f = &feed{key: key, reg: r}
		r.convs[key] = f
	}
	f.refs++
	f.idle++ // a later release's removal is not this one's
	return f
}

// release lets f go; a feed nobody holds is dropped after liveRetention.
func (f *feed) release() {
	r := f.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	f.refs--
	if f.refs > 0 {
		return
	}
	idle := f.idle
	time.AfterFunc(liveRetention, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if f.refs == 0 && f.idle == idle && r.convs[f.key] == f {
			delete(r.convs, f.key)
		}
	})
}

// watched reports whether a watcher in this process, or a live run, holds key's feed.
func (r *feedRegistry) watched(key liveKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.convs[key]
	return f != nil && f.refs > 0
}

// feed holds a conversation's latest events in this process and signals its watchers here. refs and idle are
// guarded by the registry's lock, the rest by mu.
type feed struct {
	key       liveKey
	reg       *feedRegistry // the registry that holds it
	refs      int
	idle      uint64
	mu        sync.Mutex
	events    []liveEvent
	bytes     int
	watchers  map[chan struct{}]struct{}
	lastEnded int64 // the id of the last run-end event; events up to it are the ended runs'
	// relayed is closed when the last relayer started here has published everything: the next run's relayer
	// waits for it, so that a conversation's events reach the store in the order of their ids.
	relayed chan struct{}
}

// relayAfter returns the channel of the previous relayer to wait for, and puts done in its place.
func (f *feed) relayAfter(done chan struct{}) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.relayed
	f.relayed = done
	return prev
}

// add appends e and signals the watchers.
func (f *feed) add(e liveEvent) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.bytes += e.size
	drop := 0
	for len(f.events)-drop > feedEvents || (f.bytes > feedBytes && len(f.events)-drop > 1) {
		f.bytes -= f.events[drop].size
		drop++
	}
	if drop > 0 {
		clear(f.events[:drop])
		f.events = f.events[drop:]
	}
	if e.end {
		f.lastEnded = e.id
	}
	for w := range f.watchers {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	f.mu.Unlock()
}

// after returns the events with an id above id, oldest first, in a new slice.
func (f *feed) after(id int64) []liveEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := len(f.events)
	for i > 0 && f.events[i-1].id > id {
		i--
	}
	if i == len(f.events) {
		return nil
	}
	return append([]liveEvent(nil), f.events[i:]...)
}

// has reports whether the feed keeps the event id.
func (f *feed) has(id int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events) > 0 && f.events[0].id <= id && id <= f.events[len(f.events)-1].id
}

// subscribe returns a channel signalled after each event added, until unsubscribe.
func (f *feed) subscribe() chan struct{} {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.watchers == nil {
		f.watchers = map[chan struct{}]struct{}{}
	}
	f.watchers[ch] = struct{}{}
	f.mu.Unlock()
	return ch
}

func (f *feed) unsubscribe(ch chan struct{}) {
	f.mu.Lock()
	delete(f.watchers, ch)
	f.mu.Unlock()
}

// sizeOf approximates the memory an update holds.
func sizeOf(u chat.Update) int {
	n := 64 + len(u.ResponseID) + len(u.Model) + len(u.AuthorName)
	if u.Answer != nil {
		n += 64 + len(u.Answer.Value)
	}
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.Text:
			n += 16 + len(p.Text)
		case chat.ToolCall:
			n += 64 + len(p.Name) + len(p.Arguments)
		case chat.ToolResult:
			n += 64 + len(p.Result)
			for _, f := range p.Files {
				n += 64 + len(f.Data) + len(f.URL)
			}
		default:
			n += 128
		}
	}
	return n
}

// event is an event as a relay carries it to another process, as JSON.
type event struct {
	// Kind is "update", or "end" for the end of a run.
	Kind string `json:"kind"`
	// Run is the run that published the event, and Base the event id its events are numbered after.
	Run    string      `json:"run,omitempty"`
	Base   int64       `json:"base,omitempty"`
	Update *updateJSON `json:"update,omitempty"`
	// Error is why the run failed, on its end.
	Error string `json:"error,omitempty"`
}

type updateJSON struct {
	ResponseID   string            `json:"response_id,omitempty"`
	Model        string            `json:"model,omitempty"`
	FinishReason chat.FinishReason `json:"finish_reason,omitempty"`
	Steering     bool              `json:"steering,omitempty"`
	// Message holds the role, the author and the parts.
	Message chat.Message `json:"message"`
	// Answer is a typed answer's update (see Returns).
	Answer *answerJSON `json:"answer,omitempty"`
}

type answerJSON struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Final bool            `json:"final,omitempty"`
}

func encodeEvent(e liveEvent) ([]byte, error) {
	if e.end {
		return json.Marshal(event{Kind: "end", Run: e.runID, Base: e.base, Error: e.err})
	}
	u := e.u
	uj := &updateJSON{ResponseID: u.ResponseID, Model: u.Model, FinishReason: u.FinishReason, Steering: u.Steering,
		Message: chat.Message{Role: u.Role, AuthorName: u.AuthorName, Parts: u.Parts}}
	if a := u.Answer; a != nil {
		uj.Answer = &answerJSON{Type: a.Type, Value: a.Value, Final: a.Final}
	}
	return json.Marshal(event{Kind: "update", Run: e.runID, Base: e.base, Update: uj})
}
