package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// Steer sends msg to the live run of the conversation, which takes it in before its next model call and stores
// it as steering input. The run may be in this process or, through the store, in another one that shares it
// (Postgres). It fails with an error wrapping ErrNotRunning when no run holds the conversation. Across processes
// delivery is best effort: a run that ends before its next model call does not take the input in. The stored
// conversation shows what was taken in.
func (h *Host) Steer(ctx context.Context, settingsID, conversationID string, msg chat.Message) error {
	if h.cfg.Store == nil {
		return ErrNoStore
	}
	if msg.Role == "" {
		msg.Role = chat.RoleUser
	}
	if c := h.liveRun(settingsID, conversationID); c != nil {
		c.takeSteering([]chat.Message{msg})
		return nil
	}
	// No run of this host holds it: find out whether any run does, by trying to claim it.
	claim, err := h.cfg.Store.Claim(ctx, settingsID, conversationID, h.owner()+":steer", steerProbeTTL)
	switch {
	case err == nil:
		_ = h.cfg.Store.Release(ctx, claim)
		return fmt.Errorf("conversation %q: %w", conversationID, ErrNotRunning)
	case !errors.Is(err, storage.ErrConversationBusy):
		return &ConversationError{ConversationID: conversationID, Op: "steering", Err: err}
	}
	data, err := chat.MarshalMessages([]chat.Message{msg})
	if err != nil {
		return fmt.Errorf("steering conversation %q: %w", conversationID, err)
	}
	ev, _ := json.Marshal(event{Kind: "steer", Steer: data})
	if err := h.cfg.Store.Publish(ctx, settingsID, conversationID, ev); err != nil {
		return &ConversationError{ConversationID: conversationID, Op: "steering", Err: err}
	}
	return nil
}

// ErrNotRunning reports steering input for a conversation that has no live run.
var ErrNotRunning = errors.New("agent: no run holds the conversation")

// takeSteering queues input for the run's next model call.
func (c *conversationRun) takeSteering(msgs []chat.Message) {
	c.steerMu.Lock()
	c.steering = append(c.steering, msgs...)
	c.steerMu.Unlock()
}

// drainSteering returns the queued steering input and empties the queue.
func (c *conversationRun) drainSteering() []chat.Message {
	c.steerMu.Lock()
	defer c.steerMu.Unlock()
	steer := c.steering
	c.steering = nil
	return steer
}

// watchSteering follows the conversation's events for the steering input that other processes send.
func (c *conversationRun) watchSteering(ctx context.Context) error {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ch, err := c.store.Watch(wctx, c.settingsID, c.id)
	if err != nil {
		cancel()
		return err
	}
	c.done.Add(2)
	go func() {
		defer c.done.Done()
		<-c.stopped
		cancel()
	}()
	go func() {
		defer c.done.Done()
		for data := range ch {
			if len(data) < 15 || string(data[:15]) != `{"kind":"steer"` {
				continue // the updates of streaming runs, this one's included
			}
			var ev event
			if json.Unmarshal(data, &ev) != nil {
				continue
			}
			msgs, err := chat.UnmarshalMessages(ev.Steer)
			if err != nil {
				continue
			}
			c.takeSteering(msgs)
		}
	}()
	return nil
}

// steerProbeTTL bounds the claim Steer takes to find out whether a run holds the conversation, should its release
// fail.
const steerProbeTTL = 5 * time.Second
