package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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

// watches are what a conversation's run follows of the store while it holds the conversation: its signals of
// steering input and of watchers in other processes (each watched by a goroutine until stop), the steering input
// taken in so far, and the feed of a streaming run (relay.go).
//
//typeshift:owned
type watches struct {
	stopped chan struct{} // closed to stop the watches
	done    sync.WaitGroup
	wake    chan struct{} // holds a value when steering input waits in the store
	anchors []anchor      // steering input taken in, and where it goes in each later call

	elsewhere *elsewhere // what the run knows of watchers in other processes
}

// elsewhere is what a run knows of watchers in other processes: whether one watches, and the run's feed, which
// publishes through the store's relay once one does. It is apart from the run: a signal heard after the run's
// end (watchWatchers) keeps only it alive, not the run's state.
type elsewhere struct {
	feed    atomic.Pointer[runFeed] // the run's feed, once it streams
	watched atomic.Bool             // another process watches: the feed publishes through the relay
}

func newWatches() watches {
	return watches{stopped: make(chan struct{}), wake: make(chan struct{}, 1), elsewhere: &elsewhere{}}
}

// stop stops the watches and waits for their goroutines; false means they were stopped already.
func (w *watches) stop() bool {
	select {
	case <-w.stopped:
		return false
	default:
		close(w.stopped)
	}
	w.done.Wait()
	return true
}

// place returns the messages for a model call: msgs with the steering input taken in so far, each after the
// message it followed when it arrived; steer is the input taken in now, which follows the last of msgs.
func (w *watches) place(msgs, steer []chat.Message) []chat.Message {
	if len(steer) > 0 && len(msgs) > 0 {
		w.anchors = append(w.anchors, anchor{after: msgKey(msgs[len(msgs)-1]), msgs: steer})
	}
	if len(w.anchors) == 0 {
		return msgs
	}
	out := make([]chat.Message, 0, len(msgs)+len(w.anchors))
	placed := 0
	for _, m := range msgs {
		out = append(out, m)
		k := msgKey(m)
		for _, a := range w.anchors {
			if a.after == k {
				out = append(out, a.msgs...)
				placed++
			}
		}
	}
	if placed < len(w.anchors) {
		// The message a steering input followed is gone (the approval stage leaves approval parts out): the input
		// goes at the end rather than being lost.
		for _, a := range w.anchors {
			if !slices.ContainsFunc(msgs, func(m chat.Message) bool { return msgKey(m) == a.after }) {
				out = append(out, a.msgs...)
			}
		}
	}
	return out
}

// wakeUp tells the run that steering input waits in the store.
func (c *conversationRun) wakeUp() {
	select {
	case c.watches.wake <- struct{}{}:
	default: // it knows already
	}
}

// steeringWaits reports whether the run was told that steering input waits, and forgets it.
func (c *conversationRun) steeringWaits() bool {
	select {
	case <-c.watches.wake:
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
	w := &c.watches
	w.done.Add(2)
	go func() {
		defer w.done.Done()
		<-w.stopped
		cancel()
	}()
	go func() {
		defer w.done.Done()
		for range ch {
			c.wakeUp()
		}
	}()
	return nil
}

// watchWatchers follows the signals of a store that relays events (storage.EventRelay) that another process
// started watching the conversation, until lateWatchers after the run stops; a streaming run then publishes its
// events there, those it sent before the signal too. Like watchSteering, it is called before the claim, so that
// no watcher that starts after the claim looked goes unheard; it outlives the run because a watcher that starts as
// the run ends may be heard only after it: its notification travels while the run stores its end, and the
// watcher, having read the conversation's head before that end, waits for the run's events.
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
	w := &c.watches
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		<-w.stopped
		time.AfterFunc(lateWatchers, cancel)
	}()
	e := w.elsewhere
	go func() {
		// Not counted in w.done: stopping the run does not wait for lateWatchers. It touches only e, and the
		// feed relays a run that has ended on its own (runFeed.startRelay).
		for range ch {
			e.watched.Store(true)
			if f := e.feed.Load(); f != nil {
				f.startRelay()
			}
		}
	}()
	return nil
}

// lateWatchers is how long a run's end still listens for a watcher in another process that started as it ended;
// a signal of one later than that is not heard, and the watcher waits for the run's events in vain. Keep it well
// above the store's notification delay on a loaded machine.
const lateWatchers = 5 * time.Second

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
