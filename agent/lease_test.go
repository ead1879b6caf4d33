package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// tryClaims claims the conversation over and over, as another process would, until stop is closed, and returns
// how many claims succeeded: a claim taken from a live run is one that should never succeed.
func tryClaims(t *testing.T, s storage.Store, id string, stop <-chan struct{}) func() int {
	t.Helper()
	var won atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
			}
			c, err := s.Claim(context.Background(), tenant, id, "intruder", time.Minute)
			switch {
			case err == nil:
				won.Add(1)
				_ = s.Release(context.Background(), c)
			case !errors.Is(err, storage.ErrConversationBusy):
				t.Errorf("claim: %v", err)
			}
		}
	})
	return func() int { wg.Wait(); return int(won.Load()) }
}

// TestLeaseRenewedMidRun runs a conversation whose model call lasts two and a half times the lease: without renewal the
// claim would expire in the middle of the call and another process could take the conversation over.
func TestLeaseRenewedMidRun(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		// A lease of two seconds renewed every third of it leaves over a second for a late renewal on a loaded
		// machine (a second was seen to be too little with the whole suite running on two cores); the call
		// outlasts it two and a half times.
		const ttl = 2 * time.Second
		stop := make(chan struct{})
		won := -1
		slow := func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			claims := tryClaims(t, s, "renewed", stop)
			time.Sleep(5 * ttl / 2)
			close(stop)
			// Counted before the call returns: every attempt was made while the run held the conversation, not
			// after it released it.
			won = claims()
			return say("done")(msgs, opts)
		}
		m := script(slow, say("again"))
		h := host(m, agent.Config{Store: s, LeaseTTL: ttl})
		res, err := h.Run(t.Context(), agent.Text("take your time"), agent.SettingsID(tenant), agent.Conversation("renewed"))
		is.NoErr(err)
		is.Equal(res.Messages[len(res.Messages)-1].Text(), "done")
		is.Equal(won, 0) // no claim succeeded while the run held the conversation
		// The conversation is free after the run, and the next run continues it.
		res, err = h.Run(t.Context(), agent.Text("again"), agent.SettingsID(tenant), agent.Conversation("renewed"))
		is.NoErr(err)
		is.Equal(len(res.Messages), 4)
	})
}

// countingStore counts the writes that reach the store.
type countingStore struct {
	storage.Store
	appends atomic.Int64
}

func (c *countingStore) Append(ctx context.Context, cl storage.Claim, es ...storage.Entry) ([]storage.Entry, error) {
	c.appends.Add(1)
	return c.Store.Append(ctx, cl, es...)
}

// TestLeaseLostStopsRun deletes a conversation, and its lease with it, while a tool of its run works: the run is
// cancelled at the next renewal, stores nothing more, calls the model no more, and says why.
func TestLeaseLostStopsRun(t *testing.T) {
	stores(t, func(t *testing.T, base storage.Store) {
		is := is.New(t)
		s := &countingStore{Store: base}
		const ttl = 300 * time.Millisecond
		var storedBefore int64
		var toolCause error
		slowTool := tool("wait", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			storedBefore = s.appends.Load()
			is.NoErr(base.Delete(context.Background(), tenant, "lost"))
			select {
			case <-ctx.Done():
				toolCause = context.Cause(ctx)
			case <-time.After(10 * ttl):
			}
			return json.RawMessage(`"late"`), nil
		})
		m := script(call(tc("c1", "wait", `{}`)), say("never"))
		h := host(m, agent.Config{Store: s, LeaseTTL: ttl}, slowTool)
		_, err := h.Run(t.Context(), agent.Text("go"), agent.SettingsID(tenant), agent.Conversation("lost"))
		is.True(errors.Is(err, storage.ErrClaimLost)) // the run says its claim is lost
		var ce *agent.ConversationError
		is.True(errors.As(err, &ce))
		is.Equal(ce.Op, "renewing the lease")
		is.True(errors.Is(toolCause, storage.ErrClaimLost)) // the tool's context ended with the loss as its cause
		is.Equal(len(m.Requests()), 1)                      // no model call after the loss
		is.Equal(s.appends.Load(), storedBefore)            // nothing stored after the loss, not even tried
		_, err = base.LoadAll(context.Background(), tenant, "lost")
		is.True(errors.Is(err, storage.ErrNotFound))
	})
}

// TestLeaseTakenOverStopsRun lets a run's lease expire behind its back (the store's clock jumps) and another
// process take the conversation over: the run stops at the next renewal, and the new holder's entries are the
// only ones after the takeover.
func TestLeaseTakenOverStopsRun(t *testing.T) {
	is := is.New(t)
	var skew atomic.Int64
	s := memory.NewWithOptions(&memory.Options{Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
	const ttl = 300 * time.Millisecond
	var taken storage.Claim
	m := script(func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		skew.Store(int64(time.Hour)) // the lease has expired
		var err error
		taken, err = s.Claim(context.Background(), tenant, "taken", "successor", 2*time.Hour)
		is.NoErr(err)
		time.Sleep(2 * ttl) // a renewal finds the claim lost
		return say("too late")(msgs, opts)
	}, say("never"))
	h := host(m, agent.Config{Store: s, LeaseTTL: ttl})
	_, err := h.Run(t.Context(), agent.Text("go"), agent.SettingsID(tenant), agent.Conversation("taken"))
	is.True(errors.Is(err, storage.ErrClaimLost))
	all, err := s.LoadAll(context.Background(), tenant, "taken")
	is.NoErr(err)
	is.Equal(len(all), 2) // the run's start and input, stored before its model call; nothing after the takeover
	_, err = s.Append(context.Background(), taken, storage.Entry{Type: storage.EntryInput, Data: json.RawMessage(`[]`)})
	is.NoErr(err) // the successor holds the conversation
}

// TestClaimFirstSettings reads the agent's stored settings in the round trip that claims the conversation: they
// apply, and a run they make fail leaves the conversation free.
func TestClaimFirstSettings(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		doc, err := s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "tester", SchemaVersion: 1,
			Data: json.RawMessage(`{"max_iterations":1}`)}, 0)
		is.NoErr(err)
		m := script(call(tc("1", "search", `{}`)), say("never"))
		h := host(m, agent.Config{Store: s}, echo("search"))
		_, err = h.Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("first"))
		is.NoErr(err)
		is.Equal(len(m.Requests()), 1) // the stored max_iterations of 1 applied

		_, err = s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "tester", SchemaVersion: 1,
			Data: json.RawMessage(`{"max_iterations":"many"}`)}, doc.Revision)
		is.NoErr(err)
		_, err = h.Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("first"))
		is.True(err != nil) // the stored settings do not apply
		c, err := s.Claim(ctx, tenant, "first", "next", time.Minute)
		is.NoErr(err) // and the run that failed on them left the conversation free
		is.NoErr(s.Release(ctx, c))
	})
}

// storedTypes returns the types of the conversation's stored entries.
func storedTypes(t *testing.T, s storage.Store, id string) []string {
	t.Helper()
	es, err := s.LoadAll(context.Background(), tenant, id)
	if err != nil {
		t.Fatalf("loading %s: %v", id, err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Type)
	}
	return out
}

// TestStepsStoredBeforeNextCall checks what the store holds at each point of a run whose steps are stored
// together: the input before the first model call, the response with its tool results before the next one, and
// the end with the release.
func TestStepsStoredBeforeNextCall(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		var seen [][]string
		look := func(next step) step {
			return func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
				seen = append(seen, storedTypes(t, s, "steps"))
				return next(msgs, opts)
			}
		}
		m := script(look(call(tc("c1", "search", `{}`))), look(say("done")))
		h := host(m, agent.Config{Store: s}, echo("search"))
		_, err := h.Run(t.Context(), agent.Text("go"), agent.SettingsID(tenant), agent.Conversation("steps"))
		is.NoErr(err)
		is.Equal(joined(seen[0]), "run_start,input")
		is.Equal(joined(seen[1]), "run_start,input,response,tool_results")
		is.Equal(joined(storedTypes(t, s, "steps")), "run_start,input,response,tool_results,response,run_end")
		c, err := s.Claim(t.Context(), tenant, "steps", "next", time.Minute)
		is.NoErr(err) // released with the end
		is.NoErr(s.Release(t.Context(), c))
	})
}

// TestLeaseNotRenewedPastDeadline stops consuming a run's stream, as a server whose client stopped reading would,
// past the run's deadline: the keeper renews the claim only for the time the run's end may take to store, then
// lets it expire, so the conversation is free again instead of held for as long as the consumer waits.
func TestLeaseNotRenewedPastDeadline(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		const ttl = time.Second
		h := host(script(say("hello there, at length")), agent.Config{Store: s, LeaseTTL: ttl})
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		var free time.Duration
		for _, err := range h.RunStream(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("stuck")) {
			is.NoErr(err)
			// The consumer stops here: the run cannot go on. Another process tries to claim the conversation.
			for free == 0 {
				c, err := s.Claim(context.Background(), tenant, "stuck", "other", time.Minute)
				if err == nil {
					free = time.Since(start)
					is.NoErr(s.Release(context.Background(), c))
					break
				}
				is.True(errors.Is(err, storage.ErrConversationBusy))
				is.True(time.Since(start) < 30*time.Second) // the claim was renewed for ever
				time.Sleep(100 * time.Millisecond)
			}
			break
		}
		// Free once the deadline, the time to store the end and the lease have passed; not before the deadline
		// and the time to store the end.
		is.True(free > 10*time.Second)
		t.Logf("free after %v", free)
	})
}

// lateRenewal holds the first renewal it gets until the run has stored its end with its release, so that the
// renewal finds the claim released, as a renewal in flight while the run ends does.
type lateRenewal struct {
	*memory.Store
	renewing, released, renewed chan struct{}
	first, end                  sync.Once
}

func (s *lateRenewal) RenewRuns(ctx context.Context, cs []storage.Claim, ttl time.Duration) ([]storage.Renewal, error) {
	held := false
	s.first.Do(func() { held = true; close(s.renewing) })
	if !held {
		return s.Store.RenewRuns(ctx, cs, ttl)
	}
	<-s.released
	defer close(s.renewed)
	return s.Store.RenewRuns(ctx, cs, ttl)
}

func (s *lateRenewal) EndRun(ctx context.Context, e storage.RunEnd) ([]storage.Entry, error) {
	out, err := s.Store.EndRun(ctx, e)
	s.end.Do(func() {
		close(s.released)
		<-s.renewed
		time.Sleep(50 * time.Millisecond) // the renewal's answer reaches the run
	})
	return out, err
}

// TestLeaseReleasedWhileRenewed ends a run while a renewal of its claim is in flight: the renewal finds the claim
// released by the run's end, which is no loss, and the run succeeds.
func TestLeaseReleasedWhileRenewed(t *testing.T) {
	is := is.New(t)
	s := &lateRenewal{Store: memory.New(), renewing: make(chan struct{}), released: make(chan struct{}), renewed: make(chan struct{})}
	m := script(func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		<-s.renewing // the run is among those the renewal renews
		return say("done")(msgs, opts)
	})
	h := host(m, agent.Config{Store: s, LeaseTTL: 300 * time.Millisecond})
	res, err := h.Run(t.Context(), agent.Text("hello"), agent.SettingsID(tenant), agent.Conversation("late"))
	is.NoErr(err) // a renewal that finds the claim released by the run's own end is not a lost claim
	is.Equal(res.Text(), "done")
}
