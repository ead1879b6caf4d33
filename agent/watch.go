package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// ErrWatchBehind ends a Watch whose reader fell too far behind the run's updates. Load the conversation and watch
// again.
var ErrWatchBehind = errors.New("agent: the watcher fell behind the run's updates")

// event is what runs and Steer publish to a conversation's watchers, as JSON: a streaming run's update, or
// steering input for the conversation's live run.
type event struct {
	// Kind is "update" or "steer".
	Kind string `json:"kind"`
	// Run is the run that published an update.
	Run    string          `json:"run,omitempty"`
	Update *updateJSON     `json:"update,omitempty"`
	Steer  json.RawMessage `json:"steer,omitempty"` // a JSON array of messages
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

// Watch returns the updates of the conversation's streaming runs ([Host.RunStream]) as they happen, from now
// until ctx ends, whichever process runs them: in the process through the store's Publish and Watch, and across
// processes through the store (Postgres LISTEN/NOTIFY). A run's last update carries its finish reason. Updates
// published before Watch was called are not seen: load the conversation for those. A watcher that falls too far
// behind gets ErrWatchBehind.
func (h *Host) Watch(ctx context.Context, settingsID, conversationID string) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		if h.cfg.Store == nil {
			yield(chat.Update{}, ErrNoStore)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch, err := h.cfg.Store.Watch(ctx, settingsID, conversationID)
		if err != nil {
			yield(chat.Update{}, &ConversationError{ConversationID: conversationID, Op: "watching", Err: err})
			return
		}
		for data := range ch {
			var ev event
			if err := json.Unmarshal(data, &ev); err != nil {
				if !yield(chat.Update{}, &ConversationError{ConversationID: conversationID, Op: "reading an event", Err: err}) {
					return
				}
				continue
			}
			if ev.Kind != "update" || ev.Update == nil {
				continue
			}
			u := ev.Update
			if !yield(chat.Update{ResponseID: u.ResponseID, Model: u.Model, FinishReason: u.FinishReason,
				Role: u.Message.Role, AuthorName: u.Message.AuthorName, Parts: u.Message.Parts}, nil) {
				return
			}
		}
		if ctx.Err() == nil {
			yield(chat.Update{}, ErrWatchBehind)
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
			_ = c.store.Publish(ctx, c.settingsID, c.id, data)
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
