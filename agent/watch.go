package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// ErrWatchBehind ends a Watch whose updates the store no longer keeps: the reader fell too far behind, or resumed
// after an update that was pruned. Load the conversation and watch again.
var ErrWatchBehind = errors.New("agent: the watcher fell behind the run's updates")

// event is what a streaming run publishes to its conversation's watchers, as JSON.
type event struct {
	// Kind is "update".
	Kind string `json:"kind"`
	// Run is the run that published the update.
	Run    string      `json:"run,omitempty"`
	Update *updateJSON `json:"update,omitempty"`
}

type updateJSON struct {
	ResponseID   string            `json:"response_id,omitempty"`
	Model        string            `json:"model,omitempty"`
	FinishReason chat.FinishReason `json:"finish_reason,omitempty"`
	// Message holds the role, the author and the parts.
	Message chat.Message `json:"message"`
}

func encodeUpdate(runID string, u chat.Update) ([]byte, error) {
	return json.Marshal(event{Kind: "update", Run: runID, Update: &updateJSON{
		ResponseID: u.ResponseID, Model: u.Model, FinishReason: u.FinishReason,
		Message: chat.Message{Role: u.Role, AuthorName: u.AuthorName, Parts: u.Parts},
	}})
}

// WatchedUpdate is an update of a streaming run as a watcher receives it.
type WatchedUpdate struct {
	// ID is the update's place among the conversation's events, counted from 1 by the store. Pass the last ID a
	// watcher received to [Host.WatchAfter] to resume after it; an HTTP layer sends it as the event id of
	// server-sent events and reads it back from Last-Event-ID.
	ID int64
	// RunID is the run that published the update.
	RunID string
	chat.Update
}

// Watch returns the updates of the conversation's streaming runs ([Host.RunStream]) published from now until ctx
// ends, whichever process runs them. It is [Host.WatchAfter] from now, without the ids.
func (h *Host) Watch(ctx context.Context, settingsID, conversationID string) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		for u, err := range h.WatchAfter(ctx, settingsID, conversationID, storage.WatchFromNow) {
			if !yield(u.Update, err) {
				return
			}
		}
	}
}

// WatchAfter returns the updates of the conversation's streaming runs whose id is above after, until ctx ends,
// whichever process runs them: those the store still keeps first (the store keeps a conversation's latest
// storage.MaxEvents for a few minutes), then each as it is published. With after < 0 (storage.WatchFromNow) it
// starts with the updates published from now on. A run's last update carries its finish reason. A watcher that
// fell behind, or resumes after an update the store no longer keeps, gets ErrWatchBehind: load the conversation
// and watch again.
func (h *Host) WatchAfter(ctx context.Context, settingsID, conversationID string, after int64) iter.Seq2[WatchedUpdate, error] {
	return func(yield func(WatchedUpdate, error) bool) {
		if h.cfg.Store == nil {
			yield(WatchedUpdate{}, ErrNoStore)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch, err := h.cfg.Store.Watch(ctx, settingsID, conversationID, after)
		if err != nil {
			yield(WatchedUpdate{}, &ConversationError{ConversationID: conversationID, Op: "watching", Err: err})
			return
		}
		for e := range ch {
			var ev event
			if err := json.Unmarshal(e.Data, &ev); err != nil {
				if !yield(WatchedUpdate{ID: e.ID}, &ConversationError{ConversationID: conversationID, Op: "reading an event", Err: err}) {
					return
				}
				continue
			}
			if ev.Kind != "update" || ev.Update == nil {
				continue
			}
			u := ev.Update
			if !yield(WatchedUpdate{ID: e.ID, RunID: ev.Run, Update: chat.Update{ResponseID: u.ResponseID, Model: u.Model,
				FinishReason: u.FinishReason, Role: u.Message.Role, AuthorName: u.Message.AuthorName, Parts: u.Message.Parts}}, nil) {
				return
			}
		}
		if ctx.Err() == nil {
			yield(WatchedUpdate{}, ErrWatchBehind)
		}
	}
}

// publisher sends a streaming run's updates to the conversation's watchers in order, from a goroutine of its own,
// so that a slow store (a NOTIFY per update) does not hold up the run. Watching is best effort: an update that
// cannot be published is dropped, never an error of the run.
type publisher struct {
	c    *conversationRun
	ch   chan chat.Update
	done sync.WaitGroup
}

// publishBuffer is how many updates may wait for the store; beyond it the run waits.
const publishBuffer = 256

func newPublisher(c *conversationRun) *publisher {
	p := &publisher{c: c, ch: make(chan chat.Update, publishBuffer)}
	runID := c.st.run.RunID // read once: a handoff switches the run's state, never its id
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		ctx := context.Background()
		for u := range p.ch {
			data, err := encodeUpdate(runID, u)
			if err != nil {
				continue
			}
			_, _ = c.store.Publish(ctx, c.settingsID, c.id, data)
		}
	}()
	return p
}

func (p *publisher) send(u chat.Update) { p.ch <- u }

// close waits until every update is published.
func (p *publisher) close() {
	close(p.ch)
	p.done.Wait()
}
