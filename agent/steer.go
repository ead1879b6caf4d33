package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// Steer sends msg (a user message when its role is empty) to the live run of the conversation, in this process or
// in another one that shares the store. It fails with an error wrapping ErrNotRunning when no run holds the
// conversation; it never claims the conversation itself, so it never keeps a Run from starting.
//
// When Steer returns nil the input is stored in the store, and the rule is: the live run takes it in before its
// next model call, storing it as a steering entry; input that run did not take in (it came after the run's last
// model call) is stored in the conversation when the run releases it, and input queued when the run crashed is
// stored when the conversation's next run claims it. Either way the next run reads it. Nothing Steer accepted is
// dropped. See docs/conversations.md.
func (h *Host) Steer(ctx context.Context, settingsID, conversationID string, msg chat.Message) error {
	if h.cfg.Store == nil {
		return ErrNoStore
	}
	if msg.Role == "" {
		msg.Role = chat.RoleUser
	}
	data, err := chat.MarshalMessages([]chat.Message{msg})
	if err != nil {
		return fmt.Errorf("steering conversation %q: %w", conversationID, err)
	}
	if err := h.cfg.Store.Steer(ctx, settingsID, conversationID, data); err != nil {
		if errors.Is(err, storage.ErrNotRunning) {
			return fmt.Errorf("conversation %q: %w: %w", conversationID, ErrNotRunning, err)
		}
		return &ConversationError{ConversationID: conversationID, Op: "steering", Err: err}
	}
	// The run follows the store's signals too; a run of this process hears at once.
	if c := h.liveRun(settingsID, conversationID); c != nil {
		c.wakeUp()
	}
	return nil
}

// ErrNotRunning reports steering input for a conversation that has no live run. The error also wraps
// storage.ErrNotRunning.
var ErrNotRunning = errors.New("agent: no run holds the conversation")

// wakeUp tells the run that steering input waits in the store.
func (c *conversationRun) wakeUp() {
	select {
	case c.wake <- struct{}{}:
	default: // it knows already
	}
}

// steeringWaits reports whether the run was told that steering input waits, and forgets it.
func (c *conversationRun) steeringWaits() bool {
	select {
	case <-c.wake:
		return true
	default:
		return false
	}
}

// watchSteering follows the store's signals of steering input for the conversation, until the run stops. It is
// called before the run claims the conversation, so that no input accepted under the claim goes unsignalled.
func (c *conversationRun) watchSteering(ctx context.Context) error {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ch, err := c.store.WatchSteering(wctx, c.settingsID, c.id)
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
		for range ch {
			c.wakeUp()
		}
	}()
	return nil
}

// watchWatchers follows the signals of a store that relays events (storage.EventRelay) that another process
// started watching the conversation, until the run stops; a streaming run then publishes its events there. Like
// watchSteering, it is called before the claim, so that no watcher that starts after the claim looked goes
// unheard.
func (c *conversationRun) watchWatchers(ctx context.Context) error {
	relay, ok := c.store.(storage.EventRelay)
	if !ok {
		return nil
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ch, err := relay.WatchWatchers(wctx, c.settingsID, c.id)
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
		for range ch {
			c.watchedElsewhere.Store(true)
			if f := c.feedOf.Load(); f != nil {
				f.startRelay()
			}
		}
	}()
	return nil
}

// takeSteering moves the steering input waiting in the store into the conversation, as steering entries of this
// run, and returns its messages. The store moves it in one step, so what is taken is stored.
func (c *conversationRun) takeSteering(ctx context.Context) ([]chat.Message, error) {
	c.mu.Lock()
	claim := c.claim
	c.mu.Unlock()
	taken, err := c.store.TakeSteering(ctx, claim, storage.Entry{RunID: c.st.session.run.RunID, Agent: c.st.ask.name, Author: "user"})
	if err != nil {
		return nil, &ConversationError{ConversationID: c.id, Op: "taking in steering input", Err: err}
	}
	var msgs []chat.Message
	for _, e := range taken {
		m, err := chat.UnmarshalMessages(e.Data)
		if err != nil {
			continue // stored as it came; the history reports it when it loads
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}
