package background

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// Deliver stores report as steering input of the caller's conversation, whether or not a run holds it: the live
// run takes it in before its next model call; when no run holds the conversation, the input is stored in it and
// the next run reads it. A store that is a [storage.RunStore] (the memory and Postgres stores) does this in one
// step without claiming the conversation, so a report never makes a user's run fail as busy. With another store,
// Deliver claims the conversation for a moment (as owner), steers and releases; a run that starts while Deliver
// holds that claim fails as busy, as with any claim (see storeutil.StoreSteering).
//
// A conversation that stays busy (a crashed run's lease that has not expired) is tried again until ctx ends.
// Deliver is not idempotent: a queue calls it once per outcome. A durable queue instead stores the steering input
// in the same transaction as the outcome.
func Deliver(ctx context.Context, store storage.ConversationStore, settingsID, conversationID, owner string, report []byte) error {
	if err := storeutil.StoreSteering(ctx, store, settingsID, conversationID, owner, report); err != nil {
		return fmt.Errorf("background: reporting to conversation %q: %w", conversationID, err)
	}
	return nil
}
