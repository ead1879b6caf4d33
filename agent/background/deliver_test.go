package background_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// claimCounter is the memory store, counting the claims made on it.
type claimCounter struct {
	*memory.Store
	claims atomic.Int32
}

func (c *claimCounter) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	c.claims.Add(1)
	return c.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
}

// TestDeliverClaimsNothing reports to a conversation no run holds: the report is stored in it at once, and the
// conversation is never claimed, so a user's run that starts at that moment cannot be refused as busy.
func TestDeliverClaimsNothing(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := &claimCounter{Store: memory.New()}
	c, err := s.Store.Claim(ctx, tenant, "caller", "run", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`{}`)})
	is.NoErr(err)
	is.NoErr(s.Release(ctx, c))

	is.NoErr(background.Deliver(ctx, s, tenant, "caller", "", []byte(`[{"role":"user","parts":[{"type":"text","text":"[background run bg_1 succeeded] done"}]}]`)))
	is.Equal(s.claims.Load(), int32(0)) // the report claimed nothing
	is.Equal(len(reportsOf(t, s, tenant, "caller", "bg_1")), 1)

	// Another tenant's conversation of that id is not there to report to.
	err = background.Deliver(ctx, s, otherTenant, "caller", "", []byte(`[]`))
	is.True(err != nil)
	is.Equal(len(reportsOf(t, s, tenant, "caller", "bg_1")), 1)
}
