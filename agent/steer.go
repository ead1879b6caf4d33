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

// takeSteering moves the steering input waiting in the store into the conversation, as steering entries of this
// run, and returns its messages. The store moves it in one step, so what is taken is stored.
func (c *conversationRun) takeSteering(ctx context.Context) ([]chat.Message, error) {
	claim := c.lease.current()
	taken, err := c.store.TakeSteering(ctx, claim, storage.Entry{RunID: c.st.session.run.RunID, Agent: c.st.ask.name(), Author: "user"})
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

// liveRun returns the live run of the conversation held by h or by a host h may hand off to, directly or not: a
// run handed off moves to its target's live runs.
func (h *Host) liveRun(settingsID, id string) *conversationRun {
	var c *conversationRun
	h.reach(func(x *Host) bool {
		c = x.live.get(settingsID, id)
		return c != nil
	})
	return c
}
