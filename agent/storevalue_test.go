package agent_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// hookedStore wraps a store in a struct value that cannot be compared, as a decorator for metrics or logging
// often is: its func field makes == on it panic.
type hookedStore struct {
	storage.Store
	count func()
}

func (s hookedStore) Load(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	s.count()
	return s.Store.Load(ctx, settingsID, conversationID)
}

// relayingStore is a hookedStore that passes on the relay of the store it wraps.
type relayingStore struct {
	hookedStore
	storage.EventRelay
}

func hooked(s storage.Store) (hookedStore, *atomic.Int64) {
	var n atomic.Int64
	return hookedStore{Store: s, count: func() { n.Add(1) }}, &n
}

// TestStoreStructValue: a store that is a struct value that cannot be compared runs conversations, watchers and
// steering, in one process and across two.
func TestStoreStructValue(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		s, _ := hooked(memory.New())
		model := &steeredModel{}
		inTool, toolGo := make(chan struct{}), make(chan struct{})
		h := host(model.client(), agent.Config{Store: s}, tool("wait", waitTool(inTool, toolGo)))
		steerAndWatch(t, h, h, model, inTool, toolGo)
		steerStoredAfterResults(t, s)
		secondRun(t, h)
	})
	t.Run("postgres", func(t *testing.T) {
		pa, open := pgStore(t)
		a, _ := hooked(pa)
		model := &steeredModel{}
		inTool, toolGo := make(chan struct{}), make(chan struct{})
		h := host(model.client(), agent.Config{Store: a}, tool("wait", waitTool(inTool, toolGo)))
		steerAndWatch(t, h, h, model, inTool, toolGo)
		steerStoredAfterResults(t, a)
		secondRun(t, h)

		// And from another process: the watcher and the steering on another store instance, both wrapped by a
		// decorator that passes the relay on (a wrapper that embeds storage.Store alone hides it).
		pb := open()
		b, _ := hooked(pb)
		model = &steeredModel{}
		inTool, toolGo = make(chan struct{}), make(chan struct{})
		runner := host(model.client(), agent.Config{Store: relayingStore{a, pa}}, tool("wait", waitTool(inTool, toolGo)))
		other := host(chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
			return nil, errors.New("the other host never runs")
		}), agent.Config{Store: relayingStore{b, pb}})
		is.New(t).NoErr(a.Delete(context.Background(), tenant, "live"))
		steerAndWatch(t, runner, other, model, inTool, toolGo)
	})
}

// secondRun runs the conversation "live" again, on a host of its own over the same store.
func secondRun(t *testing.T, h *agent.Host) {
	is := is.New(t)
	res, err := h.Run(context.Background(), agent.Text("thanks"), agent.SettingsID(tenant), agent.Conversation("live"))
	is.NoErr(err)
	is.Equal(res.Text(), "steered to B")
}

// TestShareFeeds: two hosts over one store (a decorator of the memory store) share their feeds
// once joined, so that a watcher reached through one follows, from memory, a run of the other, and steering
// through it reaches the run.
func TestShareFeeds(t *testing.T) {
	s, _ := hooked(memory.New())
	model := &steeredModel{}
	inTool, toolGo := make(chan struct{}), make(chan struct{})
	runner := host(model.client(), agent.Config{Store: s}, tool("wait", waitTool(inTool, toolGo)))
	other := host(chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return nil, errors.New("the other host never runs")
	}), agent.Config{Store: s})
	agent.ShareFeeds(runner, other)
	steerAndWatch(t, runner, other, model, inTool, toolGo)
	steerStoredAfterResults(t, s)
}
