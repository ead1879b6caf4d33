package agent

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
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
	size    int  // the text and reasoning gathered, in bytes
	has     bool // pending holds something
	timer   *time.Timer
	armed   bool // the timer runs for the pending event
	closed  bool

	relay *relayer // nil until another process watches
	// What the relay needs, read when the run starts streaming: the relay starts from another goroutine, and a
	// handoff changes the run's host.
	store                      storage.ConversationStore
	settingsID, conversationID string
	tel                        *telemetry.Instrumentation
	log                        *slog.Logger
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
	textOnly := u.Progress == nil && u.FinishReason == "" && !u.Steering && u.Answer == nil
	if !f.has {
		f.pending = chat.Update{ResponseID: u.ResponseID, Model: u.Model, Role: u.Role, AuthorName: u.AuthorName,
			Steering: u.Steering, Answer: u.Answer}
		f.has = true
	}
	if f.pending.Model == "" {
		f.pending.Model = u.Model
	}
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.Text:
			f.text.WriteString(p.Text)
			f.size += len(p.Text)
			continue
		case chat.Reasoning:
			// Reasoning streams as deltas too: gathered like text, into the part before it when that is the
			// same reasoning, still unsigned.
			f.takeText()
			f.size += len(p.Text)
			if n := len(f.pending.Parts); n > 0 {
				if last, ok := f.pending.Parts[n-1].(chat.Reasoning); ok && joinsReasoning(last, p) {
					last.Text += p.Text
					last.Encrypted, last.Signature = p.Encrypted, p.Signature
					f.pending.Parts[n-1] = last
					continue
				}
			}
			f.pending.Parts = append(f.pending.Parts, p)
			continue
		}
		textOnly = false
		f.takeText()
		f.pending.Parts = append(f.pending.Parts, p)
	}
	f.pending.FinishReason = u.FinishReason
	f.pending.Progress = u.Progress
	switch {
	case !textOnly || f.size >= coalesceBytes:
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
	return p.FinishReason == "" && p.Progress == nil && u.Progress == nil && !p.Steering && !u.Steering &&
		p.Answer == nil && u.Answer == nil && p.Role == u.Role &&
		p.AuthorName == u.AuthorName && (u.ResponseID == "" || u.ResponseID == p.ResponseID) &&
		(u.Model == "" || p.Model == "" || u.Model == p.Model)
}

// joinsReasoning reports whether the reasoning delta p continues last: the same provider's same item and part
// (Index), last not yet closed by an encrypted form or a signature.
func joinsReasoning(last, p chat.Reasoning) bool {
	return last.Provider == p.Provider && last.ID == p.ID && last.Index == p.Index && last.Encrypted == "" && last.Signature == ""
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
	f.pending, f.has, f.size = chat.Update{}, false, 0
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
	f.feed.release()
	return f.next
}

// startRelay starts publishing the run's events, those sent so far first, through the store's relay. It is
// called when the claim found a watcher in another process, or when one starts watching, which may be after the
// run ended: the process's feed still holds the run's events then, and the relay publishes them up to its end.
func (f *runFeed) startRelay() {
	relay, ok := f.store.(storage.EventRelay)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.relay != nil {
		return
	}
	r := &relayer{relay: relay, feed: f.feed, runID: f.runID, settingsID: f.settingsID, conversationID: f.conversationID,
		published: f.base, tel: f.tel, log: f.log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.prev = f.feed.relayAfter(r.done)
	f.relay = r
	if f.closed {
		r.last.Store(f.next)
	}
	go r.run()
	r.kick()
}

// relayer publishes a run's events through the store's relay, from a goroutine of its own. It sends every event
// added since its last publish in one call: a slow store makes batches larger, never the run slower. An event
// the feed dropped before it was published is a gap the watchers see, and they reload the conversation.
type relayer struct {
	relay                      storage.EventRelay
	feed                       *feed
	runID                      string
	settingsID, conversationID string
	tel                        *telemetry.Instrumentation
	log                        *slog.Logger
	published                  int64 // the id of the last event handed to the store
	wake                       chan struct{}
	last                       atomic.Int64    // the run's last event, once it ended
	prev                       <-chan struct{} // closed when the previous run's relayer in this process is done; nil if none
	done                       chan struct{}   // closed when this one is
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
		if e.runID != r.runID {
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
		err := r.relay.Publish(ctx, r.settingsID, r.conversationID, out)
		cancel()
		if err != nil {
			if r.tel != nil {
				r.tel.WatchEventsDropped(context.Background(), int64(len(out)))
			}
			if r.log != nil {
				r.log.Warn("typeshift: publishing a run's events for watchers in other processes failed; they will reload the conversation",
					slog.String("conversation", r.conversationID), slog.Int("events", len(out)), slog.Any("error", err))
			}
		}
	}
	r.published = last
}
