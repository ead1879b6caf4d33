package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// ErrWatchBehind ends a Watch that cannot go on without losing updates: events after the watcher's position are
// gone (it resumed too late, after an id of a conversation since deleted and created again, or a store dropped
// them). Load the conversation and watch again from now.
var ErrWatchBehind = errors.New("agent: the watcher fell behind the run's updates")

// decodeEvent reads an event another process published, with its run's base; ok is false for a kind this version
// does not know.
func decodeEvent(e storage.Event) (w WatchedUpdate, base int64, ok bool, err error) {
	var ev event
	if err := json.Unmarshal(e.Data, &ev); err != nil {
		return WatchedUpdate{ID: e.ID}, 0, false, err
	}
	base = ev.Base
	w = WatchedUpdate{ID: e.ID, RunID: ev.Run}
	switch {
	case ev.Kind == "end":
		w.RunEnded, w.RunError = true, ev.Error
	case ev.Kind == "update" && ev.Update != nil:
		u := ev.Update
		w.Update = chat.Update{ResponseID: u.ResponseID, Model: u.Model, FinishReason: u.FinishReason, Steering: u.Steering,
			Role: u.Message.Role, AuthorName: u.Message.AuthorName, Parts: u.Message.Parts}
		if a := u.Answer; a != nil {
			w.Update.Answer = &chat.AnswerUpdate{Type: a.Type, Value: a.Value, Final: a.Final}
		}
	default:
		return w, base, false, nil
	}
	return w, base, true, nil
}

// WatchedUpdate is an update of a streaming run as a watcher receives it.
type WatchedUpdate struct {
	// ID is the update's place among the conversation's events. Pass the last ID a watcher received to
	// [Host.WatchAfter] to resume after it; an HTTP layer sends it as the event id of server-sent events and
	// reads it back from Last-Event-ID. Ids increase across the conversation's runs, skip none, and are never
	// given again, even to a conversation deleted and created again under the same id.
	ID int64
	// RunID is the run that published the update.
	RunID string
	// RunEnded marks the last event of a run: it has no parts, and RunError says why the run failed, if it did.
	RunEnded bool
	RunError string
	chat.Update
}

// Watch returns the updates of the conversation's streaming runs ([Host.RunStream]) from now until ctx ends,
// whichever process runs them. It is [Host.WatchAfter] from now, without the ids and the runs' ends.
func (h *Host) Watch(ctx context.Context, settingsID, conversationID string) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		for u, err := range h.WatchAfter(ctx, settingsID, conversationID, storage.WatchFromNow) {
			if err == nil && u.RunEnded {
				continue
			}
			if !yield(u.Update, err) {
				return
			}
		}
	}
}

// gapGrace is how long a watcher waits for a missing event before it calls it lost: the last events of a run,
// published after its release, may reach the store after the first of the next run's in another process.
const gapGrace = 2 * time.Second

// WatchAfter returns the events of the conversation's streaming runs whose id is above after, until ctx ends,
// whichever process runs them. A run's text comes coalesced (what the model streamed over some tens of
// milliseconds in one update), its tool calls, results and approval requests whole, and its end as an update
// with RunEnded set. With after < 0 (storage.WatchFromNow) it starts with the run live now, from its first
// update, if there is one, and otherwise with the next run.
//
// A watcher in the process that runs the run is fed from memory; one in another process through the store, when
// it relays events (storage.EventRelay), which a run does only while it is watched from elsewhere. A process keeps
// a conversation's latest events for a minute after its last run or watcher; a relaying store keeps them for its
// retention. A watcher that resumes after events no longer kept, or after an id of a conversation since deleted
// and created again, gets ErrWatchBehind at once, and one that misses events while it watches gets it then: load
// the conversation (its stored messages hold everything the runs said) and watch again from now.
func (h *Host) WatchAfter(ctx context.Context, settingsID, conversationID string, after int64) iter.Seq2[WatchedUpdate, error] {
	return func(yield func(WatchedUpdate, error) bool) {
		store := h.cfg.Store
		if store == nil {
			yield(WatchedUpdate{}, ErrNoStore)
			return
		}
		watchErr := func(op string, err error) error {
			return &ConversationError{ConversationID: conversationID, Op: op, Err: err}
		}
		if err := storage.CheckIDs(settingsID, conversationID); err != nil {
			yield(WatchedUpdate{}, watchErr("watching", err))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		f := h.feeds().acquire(liveKey{settingsID, conversationID})
		defer f.release()
		local := f.subscribe()
		defer f.unsubscribe(local)

		rng, err := store.EventRange(ctx, settingsID, conversationID)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			yield(WatchedUpdate{}, watchErr("watching", err))
			return
		}
		head := rng.Head
		fresh := after < 0
		switch {
		case fresh:
			after = head
		case after < rng.Base:
			// An id of a conversation since deleted and created again under the same id.
			yield(WatchedUpdate{}, ErrWatchBehind)
			return
		}
		var remote <-chan storage.Event
		if relay, ok := store.(storage.EventRelay); ok {
			if remote, err = relay.Watch(ctx, settingsID, conversationID, after); err != nil {
				yield(WatchedUpdate{}, watchErr("watching", err))
				return
			}
		}
		m := merger{cursor: after, known: head, fresh: fresh}
		var grace <-chan time.Time
		for {
			// Hand out every event that follows the cursor, from memory or from the store.
			for {
				w, ok, err := m.next(f)
				if err != nil && !yield(w, watchErr("reading an event", err)) {
					return
				}
				if !ok {
					break
				}
				if err == nil && !yield(w, nil) {
					return
				}
			}
			if m.gap() {
				if grace == nil {
					grace = time.After(gapGrace)
				}
			} else {
				grace = nil
			}
			select {
			case <-ctx.Done():
				return
			case <-local:
			case e, ok := <-remote:
				if !ok {
					remote = nil
					if ctx.Err() == nil {
						yield(WatchedUpdate{}, ErrWatchBehind) // the store's reads kept failing
					}
					return
				}
				m.take(e)
			case <-grace:
				if m.gap() {
					yield(WatchedUpdate{}, ErrWatchBehind)
					return
				}
				grace = nil
			}
		}
	}
}

// merger orders a watcher's events from the process's feed and the store's relay into one sequence of ids.
type merger struct {
	cursor int64 // the id of the last event handed out
	known  int64 // the highest id known to exist: the stored head, or an event seen
	// fresh is set for a watcher from now until its first event. It joins a run at the run's first event
	// available: a run that ended while the watch began owes it nothing.
	fresh  bool
	remote []remoteEvent // events from the store above the cursor, in order of id
}

// remoteEvent is an event from the store, read.
type remoteEvent struct {
	w    WatchedUpdate
	base int64
	ok   bool // a kind this version knows
	err  error
}

// take keeps an event from the store.
func (m *merger) take(e storage.Event) {
	if e.ID <= m.cursor {
		return
	}
	m.known = max(m.known, e.ID)
	w, base, ok, err := decodeEvent(e)
	m.remote = append(m.remote, remoteEvent{w: w, base: base, ok: ok, err: err}) // the store sends them in order of id
}

// next returns the event after the cursor, if memory or the store has it, and moves the cursor past it.
func (m *merger) next(f *feed) (WatchedUpdate, bool, error) {
	for {
		for len(m.remote) > 0 && m.remote[0].w.ID <= m.cursor {
			m.remote = m.remote[1:]
		}
		var local *liveEvent
		if evs := f.after(m.cursor); len(evs) > 0 {
			m.known = max(m.known, evs[len(evs)-1].id)
			local = &evs[0]
		}
		if m.fresh {
			// Join the first run whose events start at or after the watch's position.
			switch {
			case local != nil && local.base >= m.cursor && (len(m.remote) == 0 || local.id <= m.remote[0].w.ID):
				m.cursor = local.id - 1
			case len(m.remote) > 0 && m.remote[0].base >= m.cursor:
				m.cursor = m.remote[0].w.ID - 1
			}
		}
		if local != nil && local.id == m.cursor+1 {
			m.cursor, m.fresh = local.id, false
			return WatchedUpdate{ID: local.id, RunID: local.runID, RunEnded: local.end, RunError: local.err, Update: local.u}, true, nil
		}
		if len(m.remote) > 0 && m.remote[0].w.ID == m.cursor+1 {
			e := m.remote[0]
			m.remote = m.remote[1:]
			m.cursor, m.fresh = e.w.ID, false
			if !e.ok && e.err == nil {
				continue // a kind this version does not know: skip it
			}
			return e.w, true, e.err
		}
		return WatchedUpdate{}, false, nil
	}
}

// gap reports whether events after the cursor exist that neither memory nor the store has yet.
func (m *merger) gap() bool { return m.known > m.cursor }
