package agent

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// runFeed coalesces a streaming run's updates into events on its conversation's feed, numbered after the claim's
// event head, and publishes them through the store's relay while another process watches. add and close never
// wait for a store.
type runFeed struct {
	feed  *feed
	runID string
	base  int64 // the event head the run's events are numbered after

	mu      sync.Mutex
	next    int64       // the id of the last event made
	pending chat.Update // the event being gathered
	text    strings.Builder
	has     bool // pending holds something
	timer   *time.Timer
	armed   bool // the timer runs for the pending event
	closed  bool

	relay *relayer // nil until another process watches
	c     *conversationRun
}

// newRunFeed starts the feed of c's streaming run. The run's events are numbered from head+1.
func newRunFeed(c *conversationRun, head int64) *runFeed {
	f := &runFeed{feed: feeds.acquire(liveKey{c.store, c.settingsID, c.id}), runID: c.st.run.RunID, base: head, next: head, c: c}
	if c.watchedElsewhere.Load() {
		f.startRelay()
	}
	c.feedOf.Store(f)
	return f
}

// add gathers u into the pending event, sending it first when u cannot join it, and after it when u ends a
// response, carries more than text, or fills the event.
func (f *runFeed) add(u chat.Update) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.has && !joins(f.pending, u) {
		f.flushLocked()
	}
	textOnly := u.Progress == nil && u.FinishReason == ""
	if !f.has {
		f.pending = chat.Update{ResponseID: u.ResponseID, Model: u.Model, Role: u.Role, AuthorName: u.AuthorName}
		f.has = true
	}
	if f.pending.Model == "" {
		f.pending.Model = u.Model
	}
	for _, p := range u.Parts {
		if t, ok := p.(chat.Text); ok {
			f.text.WriteString(t.Text)
			continue
		}
		textOnly = false
		f.takeText()
		f.pending.Parts = append(f.pending.Parts, p)
	}
	f.pending.FinishReason = u.FinishReason
	f.pending.Progress = u.Progress
	switch {
	case !textOnly || f.text.Len() >= coalesceBytes:
		f.flushLocked()
	case f.armed:
		// The first delta of the event set the timer: the event goes out coalesceWindow after it, however fast
		// the model streams.
	case f.timer == nil:
		f.timer, f.armed = time.AfterFunc(coalesceWindow, f.flush), true
	default:
		f.timer.Reset(coalesceWindow)
		f.armed = true
	}
}

// joins reports whether u may be gathered into the pending event p: the same message of the same response, and p
// not ended.
func joins(p, u chat.Update) bool {
	return p.FinishReason == "" && p.Progress == nil && u.Progress == nil && p.Role == u.Role &&
		p.AuthorName == u.AuthorName && (u.ResponseID == "" || u.ResponseID == p.ResponseID) &&
		(u.Model == "" || p.Model == "" || u.Model == p.Model)
}

// takeText moves the gathered text into the pending parts.
func (f *runFeed) takeText() {
	if f.text.Len() == 0 {
		return
	}
	f.pending.Parts = append(f.pending.Parts, chat.Text{Text: f.text.String()})
	f.text.Reset()
}

// flush sends the pending event; the timer calls it.
func (f *runFeed) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushLocked()
}

func (f *runFeed) flushLocked() {
	if f.timer != nil {
		f.timer.Stop()
		f.armed = false
	}
	if !f.has {
		return
	}
	f.takeText()
	f.next++
	f.feed.add(liveEvent{id: f.next, runID: f.runID, base: f.base, u: f.pending, size: sizeOf(f.pending)})
	f.pending, f.has = chat.Update{}, false
	if f.relay != nil {
		f.relay.kick()
	}
}

// close sends what is pending and the run's end, lets the relay finish on its own, and returns the id of the
// run's last event.
func (f *runFeed) close(runErr error) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return f.next
	}
	f.flushLocked()
	f.closed = true
	f.next++
	e := liveEvent{id: f.next, runID: f.runID, base: f.base, end: true, size: 64}
	if runErr != nil {
		e.err = runErr.Error()
		e.size += len(e.err)
	}
	f.feed.add(e)
	if f.relay != nil {
		f.relay.finish(f.next)
	}
	feeds.release(f.feed)
	return f.next
}

// startRelay starts publishing the run's events, those sent so far first, through the store's relay. It is
// called when the claim found a watcher in another process, or when one starts watching.
func (f *runFeed) startRelay() {
	relay, ok := f.c.store.(storage.EventRelay)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.relay != nil || f.closed {
		return
	}
	r := &relayer{relay: relay, feed: f.feed, c: f.c, published: f.c.claimHead, wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.prev = f.feed.relayAfter(r.done)
	f.relay = r
	go r.run()
	r.kick()
}

// relayer publishes a run's events through the store's relay, from a goroutine of its own. It sends every event
// added since its last publish in one call: a slow store makes batches larger, never the run slower. An event
// the feed dropped before it was published is a gap the watchers see, and they reload the conversation.
type relayer struct {
	relay     storage.EventRelay
	feed      *feed
	c         *conversationRun
	published int64 // the id of the last event handed to the store
	wake      chan struct{}
	last      atomic.Int64    // the run's last event, once it ended
	prev      <-chan struct{} // closed when the previous run's relayer in this process is done; nil if none
	done      chan struct{}   // closed when this one is
}

// publishTimeout bounds one publish; a relay that times out drops the batch (the watchers see a gap).
const publishTimeout = 10 * time.Second

func (r *relayer) kick() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// finish tells the relayer the run's last event id: it returns once that is published.
func (r *relayer) finish(last int64) {
	r.last.Store(last)
	r.kick()
}

func (r *relayer) run() {
	defer close(r.done)
	if r.prev != nil {
		select {
		case <-r.prev:
		case <-time.After(publishTimeout): // a previous relayer stuck on the store does not hold this run's
		}
	}
	for range r.wake {
		evs := r.feed.after(r.published)
		if len(evs) > 0 {
			r.publish(evs)
		}
		if last := r.last.Load(); last != 0 && r.published >= last {
			return
		}
	}
}

func (r *relayer) publish(evs []liveEvent) {
	out := make([]storage.Event, 0, len(evs))
	for _, e := range evs {
		if e.runID != r.c.st.run.RunID {
			continue // a later run of the conversation in this process publishes its own
		}
		data, err := encodeEvent(e)
		if err != nil {
			continue
		}
		out = append(out, storage.Event{ID: e.id, Data: data})
	}
	last := evs[len(evs)-1].id
	if len(out) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
		err := r.relay.Publish(ctx, r.c.settingsID, r.c.id, out)
		cancel()
		if err != nil {
			h := r.c.h
			if tel := h.cfg.Telemetry; tel != nil {
				tel.WatchEventsDropped(context.Background(), int64(len(out)))
			}
			if h.cfg.Logger != nil {
				h.cfg.Logger.Warn("typeshift: publishing a run's events for watchers in other processes failed; they will reload the conversation",
					slog.String("conversation", r.c.id), slog.Int("events", len(out)), slog.Any("error", err))
			}
		}
	}
	r.published = last
}
