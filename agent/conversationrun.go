package agent

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// conversationRun is one run's hold on its conversation, in parts, each declared in the file that writes it: the
// lease (lease.go), the journal of steps to store (journal.go), the store's signals and the steering input taken
// in (watches.go), the routing among agents (routing.go) and the run's cancellation (below). The run follows the
// store's signals from here (watchSteering, watchWatchers), and steering reaches it here (wakeUp).
type conversationRun struct {
	// Whose run holds the conversation: they change when the run is handed on (runAs).
	h  *Host
	st *runState
	// Which conversation: fixed.
	store      storage.ConversationStore
	runs       storage.RunStore // the store's way for runs: the claim, its renewal and the run's end
	settingsID string
	id         string

	lease   lease
	journal journal
	watches watches
	routing routing
	ctl     runControl
}

// runControl is how a conversation's run is stopped: its cancel, set when it begins, and when its context ended.
//
//typeshift:owned
type runControl struct {
	mu      sync.Mutex
	cancel  context.CancelCauseFunc
	ctxDone time.Time // when the run's context ended (its deadline, its caller gone), or zero
}

// begin records the run's cancel, and, once ctx ends, when it did.
func (r *runControl) begin(ctx context.Context, cancel context.CancelCauseFunc) {
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.ctxDone = time.Now()
		r.mu.Unlock()
	})
}

// cancelWith cancels the run with err as the cause, once it has begun.
func (r *runControl) cancelWith(err error) {
	r.mu.Lock()
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel(err)
	}
}

// begun reports whether the run began.
func (r *runControl) begun() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancel != nil
}

// overdue reports a run whose context ended longer ago than storing its end may take: a run stuck past its
// deadline (its stream's consumer stopped reading, say) is no longer renewed, so its claim expires and the
// conversation is free again; what the run stores later, the store refuses.
func (r *runControl) overdue() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.ctxDone.IsZero() && time.Since(r.ctxDone) > finishTimeout
}

// owner names the process and agent holding a claim, for people reading the store.
func (h *Host) owner() string {
	if h.cfg.Owner != "" {
		return h.cfg.Owner
	}
	return processName() + ":" + h.decl.Name
}

// processName is host:pid, looked up once.
var processName = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(os.Getpid())
})

// finishTimeout bounds storing the end of a run whose context has ended.
const finishTimeout = 10 * time.Second

// saved is the state the run's end and summary entries store: the session's, and, once the conversation has been
// handed off, the agent whose run it is, which the next run goes to.
func (c *conversationRun) saved() savedState {
	d := c.st.session.saved()
	if c.routing.routed {
		d.Agent = c.st.ask.name()
	}
	return d
}

// runAs makes st the conversation's run: its steps are stored under st's agent, and steering for the conversation
// reaches it through st's host.
func (c *conversationRun) runAs(st *runState) {
	c.h.live.remove(c)
	c.h, c.st = st.ask.h, st
	c.h.live.add(c)
}

// close stops the renewal and the watch and releases the claim, unless the end of the run released it or it is
// lost. Releasing stores the steering input the run did not take in, so that the next run reads it.
func (c *conversationRun) close() error {
	if !c.watches.stop() {
		return nil // closed already
	}
	c.h.live.remove(c)
	c.lease.keeper.remove(c)
	claim, lost := c.lease.end()
	if lost != nil || c.journal.released {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	if err := c.store.Release(ctx, claim); err != nil && !errors.Is(err, storage.ErrClaimLost) {
		return &ConversationError{ConversationID: c.id, Op: "releasing the conversation", Err: err}
	}
	return nil
}

// liveRuns are a host's runs that hold their conversation now, for Steer.
type liveRuns struct {
	mu   sync.Mutex
	runs map[[2]string]*conversationRun
}

func (l *liveRuns) add(c *conversationRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[[2]string]*conversationRun{}
	}
	l.runs[[2]string{c.settingsID, c.id}] = c
}

func (l *liveRuns) remove(c *conversationRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]string{c.settingsID, c.id}
	if l.runs[k] == c {
		delete(l.runs, k)
	}
}

func (l *liveRuns) get(settingsID, id string) *conversationRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[[2]string{settingsID, id}]
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
