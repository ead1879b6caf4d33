package background

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Deliver stores report as steering input of the caller's conversation, whether or not a run holds it: the live
// run takes it in before its next model call; when no run holds the conversation, the input is stored in it and
// the next run reads it. A store that is a [storage.SteeringStorer] (the memory and Postgres stores) does this in
// one step without claiming the conversation, so a report never makes a user's run fail as busy. With another
// store, Deliver claims the conversation for a moment (as owner), steers and releases; a run that starts while
// Deliver holds that claim fails as busy, as with any claim.
//
// A conversation that stays busy (a crashed run's lease that has not expired) is tried again until ctx ends.
// Deliver is not idempotent: a queue calls it once per outcome. A durable queue instead stores the steering input
// in the same transaction as the outcome.
func Deliver(ctx context.Context, store storage.ConversationStore, settingsID, conversationID, owner string, report []byte) error {
	if ss, ok := store.(storage.SteeringStorer); ok {
		if err := ss.StoreSteering(ctx, settingsID, conversationID, report); err != nil {
			return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, err)
		}
		return nil
	}
	for attempt := 0; ; attempt++ {
		err := store.Steer(ctx, settingsID, conversationID, report)
		if err == nil || !errors.Is(err, storage.ErrNotRunning) {
			if err != nil {
				return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, err)
			}
			return nil
		}
		c, err := store.Claim(ctx, settingsID, conversationID, owner, 30*time.Second)
		if errors.Is(err, storage.ErrConversationBusy) {
			// A run took the conversation between the two steps (steer into it), or a crashed run's lease has
			// not expired yet (wait for it): try again, until ctx ends.
			select {
			case <-ctx.Done():
				return fmt.Errorf("background: reporting to conversation %q: %w (%w)", conversationID, err, ctx.Err())
			case <-time.After(min(time.Duration(attempt+1)*10*time.Millisecond, time.Second)):
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, err)
		}
		err = store.Steer(ctx, settingsID, conversationID, report)
		// Release moves the input into the conversation's entries; without it the next Claim does (after the
		// lease), so the input is kept either way once Steer accepted it.
		rerr := store.Release(context.WithoutCancel(ctx), c)
		if err != nil {
			return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, err)
		}
		if rerr != nil {
			return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, rerr)
		}
		return nil
	}
}
