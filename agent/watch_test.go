package agent_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// pacedModel streams a numbered answer as deltas, a pause between them, as a real model streams.
type pacedModel struct {
	deltas int
	pause  time.Duration
}

func (m pacedModel) answer(msgs []chat.Message) []string {
	turn := 0
	for _, msg := range msgs {
		if msg.Role == chat.RoleUser {
			turn++
		}
	}
	out := make([]string, m.deltas)
	for i := range out {
		out[i] = fmt.Sprintf("t%d.%d ", turn, i)
	}
	return out
}

func (m pacedModel) Respond(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: strings.Join(m.answer(msgs), "")}}}}, FinishReason: chat.FinishStop}, nil
}

func (m pacedModel) Stream(ctx context.Context, msgs []chat.Message, _ *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		for _, d := range m.answer(msgs) {
			select {
			case <-ctx.Done():
				yield(chat.Update{}, ctx.Err())
				return
			case <-time.After(m.pause):
			}
			if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: d}}}, nil) {
				return
			}
		}
		yield(chat.Update{Role: chat.RoleAssistant, FinishReason: chat.FinishStop}, nil)
	}
}

// instances returns n hosts of the agent that share one conversation store the way instances of a service do:
// for memory, one store in the process; for Postgres, a store (a pool and a LISTEN connection) each.
func instances(t *testing.T, kind string, model chat.Client, n int) []*agent.Host {
	t.Helper()
	hosts := make([]*agent.Host, n)
	var mem storage.Store = memory.New()
	var open func() storage.Store
	if kind == "postgres" {
		first, more := pgStore(t)
		open = func() storage.Store {
			if first != nil {
				s := first
				first = nil
				return s
			}
			return more()
		}
	}
	for i := range hosts {
		store := mem
		if open != nil {
			store = open()
		}
		hosts[i] = host(model, agent.Config{Store: store})
	}
	if open == nil {
		agent.ShareFeeds(hosts...) // the hosts of one process that share the memory store meet in memory
	}
	return hosts
}

// storedText is the assistant text the conversation holds, the runs in order.
func storedText(t *testing.T, h *agent.Host, id string) string {
	t.Helper()
	st, err := h.LoadConversation(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range st.Messages {
		if m.Role == chat.RoleAssistant {
			b.WriteString(m.Text())
		}
	}
	return b.String()
}

// follower reads a watch and keeps what it saw.
type follower struct {
	text    strings.Builder
	ids     []int64
	ends    int
	lastID  int64
	behind  bool
	readErr error
}

// follow reads w until stop says so after an event, or the watch ends; it checks that ids follow one another.
func (f *follower) follow(t *testing.T, w iter.Seq2[agent.WatchedUpdate, error], stop func(f *follower) bool) {
	t.Helper()
	for u, err := range w {
		if errors.Is(err, agent.ErrWatchBehind) {
			f.behind = true
			return
		}
		if err != nil {
			f.readErr = err
			return
		}
		if f.lastID != 0 && u.ID != f.lastID+1 {
			t.Errorf("event %d after %d: ids must follow one another, none lost or doubled", u.ID, f.lastID)
		}
		f.lastID = u.ID
		f.ids = append(f.ids, u.ID)
		for _, p := range u.Parts {
			if tx, ok := p.(chat.Text); ok {
				f.text.WriteString(tx.Text)
			}
		}
		if u.RunEnded {
			f.ends++
		}
		if stop(f) {
			return
		}
	}
}

// TestWatcherOnAnotherInstance: a watcher on one instance sees the whole text of every run of another, in events
// that coalesce the deltas, each run closed by its end.
func TestWatcherOnAnotherInstance(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			is := is.New(t)
			model := pacedModel{deltas: 60, pause: 2 * time.Millisecond}
			hosts := instances(t, kind, model, 2)
			runner, watcher := hosts[0], hosts[1]
			const runs = 3
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			_, err := runner.Run(ctx, agent.Text("first"), agent.SettingsID(tenant), agent.Conversation("watched"))
			is.NoErr(err) // the conversation exists; its first run is not watched

			var f follower
			done := make(chan struct{})
			go func() {
				defer close(done)
				f.follow(t, watcher.WatchAfter(ctx, tenant, "watched", storage.WatchFromNow), func(f *follower) bool { return f.ends == runs })
			}()
			time.Sleep(200 * time.Millisecond) // the watcher registers before the runs claim
			for i := range runs {
				for _, err := range runner.RunStream(ctx, agent.Text(fmt.Sprint("more ", i)), agent.SettingsID(tenant), agent.Conversation("watched")) {
					is.NoErr(err)
				}
			}
			<-done
			is.True(!f.behind)
			is.NoErr(f.readErr)
			is.Equal(f.ends, runs)
			stored := storedText(t, runner, "watched")
			first := strings.Join(model.answer([]chat.Message{chat.UserText("first")}), "")
			is.Equal(first+f.text.String(), stored) // every run's whole text, as stored
			// Coalesced: far fewer events than deltas, and more than one a run.
			is.True(len(f.ids) < runs*model.deltas/4)
			is.True(len(f.ids) > runs*2)
		})
	}
}

// TestWatchCutAndResumed: a watcher cut at a random moment resumes with the last id it read on another instance,
// and ends with the text the conversation stores, without an event lost or doubled.
func TestWatchCutAndResumed(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			for round := range 3 {
				t.Run(fmt.Sprint(round), func(t *testing.T) {
					is := is.New(t)
					model := pacedModel{deltas: 40, pause: 3 * time.Millisecond}
					hosts := instances(t, kind, model, 3)
					runner, first, second := hosts[0], hosts[1], hosts[2]
					id := fmt.Sprint("cut-", round)
					const runs = 2
					ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
					defer cancel()
					_, err := runner.Run(ctx, agent.Text("hello"), agent.SettingsID(tenant), agent.Conversation(id))
					is.NoErr(err)

					cutAfter := 1 + rand.IntN(runs*5)
					var f follower
					cut := make(chan struct{})
					go func() {
						defer close(cut)
						f.follow(t, first.WatchAfter(ctx, tenant, id, storage.WatchFromNow), func(f *follower) bool { return len(f.ids) == cutAfter || f.ends == runs })
					}()
					time.Sleep(200 * time.Millisecond)
					ran := make(chan struct{})
					go func() {
						defer close(ran)
						for i := range runs {
							for _, err := range runner.RunStream(ctx, agent.Text(fmt.Sprint("more ", i)), agent.SettingsID(tenant), agent.Conversation(id)) {
								if err != nil {
									t.Error(err)
								}
							}
						}
					}()
					<-cut
					is.True(!f.behind)
					if f.ends < runs {
						// Reconnect elsewhere with the last id read, as a browser sends Last-Event-ID.
						f.follow(t, second.WatchAfter(ctx, tenant, id, f.lastID), func(f *follower) bool { return f.ends == runs })
					}
					<-ran
					is.True(!f.behind)
					is.NoErr(f.readErr)
					hello := strings.Join(model.answer([]chat.Message{chat.UserText("hello")}), "")
					is.Equal(hello+f.text.String(), storedText(t, runner, id))
				})
			}
		})
	}
}

// TestWatcherAsRunEnds: a watcher on another instance that resumes just after a run nobody watched has ended,
// from the run before it, still gets that run's events: the run hears of the watcher after its end and publishes
// them then, instead of leaving the watcher to wait for events that never come, or to be told it is behind.
func TestWatcherAsRunEnds(t *testing.T) {
	for _, kind := range []string{"memory", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			is := is.New(t)
			model := pacedModel{deltas: 20, pause: time.Millisecond}
			var a, b storage.Store = memory.New(), nil
			b = a
			if kind == "postgres" {
				pa, open := pgStore(t)
				a, b = pa, open()
			}
			runner, watcher := host(model, agent.Config{Store: a}), host(model, agent.Config{Store: b})
			if kind == "memory" {
				agent.ShareFeeds(runner, watcher) // one process: the hosts meet in memory
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			for _, err := range runner.RunStream(ctx, agent.Text("one"), agent.SettingsID(tenant), agent.Conversation("ending")) {
				is.NoErr(err)
			}
			before := storedText(t, runner, "ending")
			rng, err := a.EventRange(ctx, tenant, "ending")
			is.NoErr(err)
			last := rng.Head
			for _, err := range runner.RunStream(ctx, agent.Text("two"), agent.SettingsID(tenant), agent.Conversation("ending")) {
				is.NoErr(err) // nobody watches: its events stay in the runner's process
			}
			var f follower
			f.follow(t, watcher.WatchAfter(ctx, tenant, "ending", last), func(f *follower) bool { return f.ends == 1 })
			is.True(!f.behind)
			is.NoErr(f.readErr)
			is.Equal(f.ends, 1)
			is.Equal(before+f.text.String(), storedText(t, runner, "ending"))
		})
	}
}

// TestWatchAfterDeleted: a watcher resuming after an id of a conversation deleted and created again under the same
// id is told at once that it is behind, instead of being handed the new conversation from the middle.
func TestWatchAfterDeleted(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		h := host(pacedModel{deltas: 5, pause: time.Millisecond}, agent.Config{Store: s})
		ctx := t.Context()
		for _, err := range h.RunStream(ctx, agent.Text("one"), agent.SettingsID(tenant), agent.Conversation("reused")) {
			is.NoErr(err)
		}
		old, err := s.EventRange(ctx, tenant, "reused")
		is.NoErr(err)
		is.NoErr(s.Delete(ctx, tenant, "reused"))
		for _, err := range h.RunStream(ctx, agent.Text("two"), agent.SettingsID(tenant), agent.Conversation("reused")) {
			is.NoErr(err)
		}
		for _, after := range []int64{old.Head, old.Head - 1, old.Base} {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			n := 0
			var got error
			for _, err := range h.WatchAfter(wctx, tenant, "reused", after) {
				n++
				got = err
				break
			}
			cancel()
			is.Equal(n, 1)
			is.True(errors.Is(got, agent.ErrWatchBehind)) // not an event of the new conversation
		}
	})
}
