package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// storePair returns a store for the run and one for the steering side: the same memory store, or two Postgres
// stores with pools of their own on one schema, as two processes would have.
func storePair(t *testing.T, kind string) (storage.Store, storage.Store) {
	if kind == "memory" {
		s := memory.New()
		return s, s
	}
	a, open := pgStore(t)
	return a, open()
}

// hookedClaim calls after once a claim of the run's succeeded, before the run goes on.
type hookedClaim struct {
	storage.Store
	after func()
}

func (h *hookedClaim) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	c, err := h.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
	if err == nil && h.after != nil {
		h.after()
	}
	return c, err
}

// steeringTexts returns the texts of the conversation's steering entries.
func steeringTexts(t *testing.T, s storage.Store, id string) []string {
	t.Helper()
	all, err := s.LoadAll(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range all {
		if e.Type != storage.EntrySteering {
			continue
		}
		msgs, err := chat.UnmarshalMessages(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			out = append(out, m.Text())
		}
	}
	return out
}

// idle is a host that only steers.
func idle(s storage.Store) *agent.Host {
	return host(chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return nil, errors.New("this host never runs")
	}), agent.Config{Store: s})
}

// TestSteerJustAfterClaim: input sent once the run holds its claim, before it loaded the conversation or called
// the model, is accepted and found in the conversation when the run has ended.
func TestSteerJustAfterClaim(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			runStore, steerStore := storePair(t, kind)
			steerer := idle(steerStore)
			var steerErr error
			hooked := &hookedClaim{Store: runStore}
			hooked.after = func() {
				hooked.after = nil
				steerErr = steerer.Steer(ctx, tenant, "early", chat.UserText("right after the claim"))
			}
			h := host(script(say("done")), agent.Config{Store: hooked})
			_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("early"))
			is.NoErr(err)
			is.NoErr(steerErr) // accepted: the run held the claim
			is.Equal(steeringTexts(t, runStore, "early"), []string{"right after the claim"})
		})
	}
}

// TestSteerDuringLastCall: input sent while the run makes its last model call, which never reads it, is in the
// conversation once the run has ended, without waiting for a next run, and the next run's model reads it.
func TestSteerDuringLastCall(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			runStore, steerStore := storePair(t, kind)
			steerer := idle(steerStore)
			var steerErr error
			m := script(
				func(msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
					steerErr = steerer.Steer(ctx, tenant, "last", chat.UserText("one more thing"))
					return say("first answer")(msgs, nil)
				},
				say("second answer"),
			)
			h := host(m, agent.Config{Store: runStore})
			_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("last"))
			is.NoErr(err)
			is.NoErr(steerErr)
			is.Equal(steeringTexts(t, runStore, "last"), []string{"one more thing"}) // stored when the run released
			_, err = h.Run(ctx, agent.Text("and?"), agent.SettingsID(tenant), agent.Conversation("last"))
			is.NoErr(err)
			seen := m.Requests()[1].Messages
			is.Equal(len(seen), 4) // hi, first answer, the steering input, and?
			is.Equal(seen[2].Text(), "one more thing")
		})
	}
}

// countingClaims counts the claims taken through it.
type countingClaims struct {
	storage.Store
	n       atomic.Int64
	claimed chan struct{} // when not nil, told of each claim that succeeded
	gate    chan struct{} // when not nil, each Claim waits for it after it succeeded
}

func (c *countingClaims) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	c.n.Add(1)
	cl, err := c.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
	if err == nil && c.gate != nil {
		c.claimed <- struct{}{}
		<-c.gate
	}
	return cl, err
}

// TestSteerNeverMakesRunBusy: Steer takes no claim, so a Run that starts while Steer is sent never fails as busy.
// First deterministically, with Steer sent while the Run's claim is being taken; then with Steer and Run racing.
func TestSteerNeverMakesRunBusy(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			runStore, steerStore := storePair(t, kind)
			counted := &countingClaims{Store: steerStore}
			steerer := idle(counted)

			gated := &countingClaims{Store: runStore, claimed: make(chan struct{}), gate: make(chan struct{})}
			h := host(script(say("done")), agent.Config{Store: gated})
			done := make(chan error)
			go func() {
				_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("race"))
				done <- err
			}()
			<-gated.claimed
			// The run's claim is taken, the run waits at the gate: Steer is accepted and claims nothing.
			is.NoErr(steerer.Steer(ctx, tenant, "race", chat.UserText("while it starts")))
			close(gated.gate)
			is.NoErr(<-done)
			is.Equal(counted.n.Load(), int64(0)) // Steer never claimed

			// Racing: runs one after another on one conversation, Steer as fast as it goes.
			h = host(chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				return chattest.Text("ok"), nil
			}), agent.Config{Store: runStore})
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var accepted atomic.Int64
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					err := steerer.Steer(ctx, tenant, "race", chat.UserText("racing"))
					if err == nil {
						accepted.Add(1)
					} else if !errors.Is(err, agent.ErrNotRunning) {
						t.Errorf("Steer: %v", err)
						return
					}
					time.Sleep(200 * time.Microsecond) // every input accepted grows the history the runs load
				}
			}()
			for i := range 30 {
				_, err := h.Run(ctx, agent.Text("again"), agent.SettingsID(tenant), agent.Conversation("race"))
				if err != nil {
					t.Fatalf("run %d: %v", i, err) // never busy because of Steer
				}
			}
			close(stop)
			wg.Wait()
			is.Equal(counted.n.Load(), int64(0))
			texts := steeringTexts(t, runStore, "race")
			is.Equal(int64(len(texts)), 1+accepted.Load()) // every accepted input is in the conversation
			for _, tx := range texts[1:] {
				is.True(strings.HasPrefix(tx, "racing"))
			}
		})
	}
}
