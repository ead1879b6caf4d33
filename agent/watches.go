package agent

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/typeshift-go/typeshift/agent/chat"
)

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

// anchor is steering input taken in, placed after the message with the key after.
type anchor struct {
	after string
	msgs  []chat.Message
}

// msgKey identifies a message of a run well enough to find it again in a later call: its role, its first call or
// result ID, and its text.
func msgKey(m chat.Message) string {
	k := string(m.Role)
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.ToolCall:
			return k + "\x00c" + p.ID
		case chat.ToolResult:
			return k + "\x00r" + p.CallID
		}
	}
	return k + "\x00t" + m.Text()
}
