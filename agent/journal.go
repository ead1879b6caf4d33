package agent

import (
	"context"
	"slices"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// journal is the write journal of a conversation's run: the steps it took and has not stored yet, and what it has
// stored, so that the checkpoint stores each message once. Steps are queued (queue) and stored together with the
// next store (store1), which comes before the run's next model call, before an approved call runs, and at its end.
//
//typeshift:owned
type journal struct {
	input []chat.Message // the run's input, stored when it starts

	mu       sync.Mutex      // orders the run's stores; guards pending
	pending  []storage.Entry // steps taken, stored with the next store, before the next model call
	started  bool            // the run's start is stored, or queued to be
	released bool            // the end of the run was stored with the release

	// What the run has stored: the tail scan of the checkpoint stores only messages these do not hold.
	knownCalls, knownResults map[string]bool
}

// open starts the journal of a run with its input, and the messages its conversation holds already (the input
// among them).
func (j *journal) open(input, stored []chat.Message) {
	j.input = input
	j.knownCalls, j.knownResults = map[string]bool{}, map[string]bool{}
	j.learn(stored)
}

// learn records the calls and results of msgs as stored.
func (j *journal) learn(msgs []chat.Message) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				j.knownCalls[p.ID] = true
			case chat.ToolResult:
				j.knownResults[p.CallID] = true
			}
		}
	}
}

// learn records the calls and results of msgs as stored.
func (c *conversationRun) learn(msgs []chat.Message) { c.journal.learn(msgs) }

// append stores entries under the run's claim, after the steps queued before them, stamped with the run, the
// agent and the author.
func (c *conversationRun) append(ctx context.Context, op string, entries ...storage.Entry) error {
	return c.store1(ctx, op, false, nil, entries)
}

// stamp marks entries with the run, the agent and the author, as they are when the step is taken, and mends
// what no store holds (storableEntries).
func (c *conversationRun) stamp(entries []storage.Entry) {
	for i := range entries {
		entries[i].RunID, entries[i].Agent = c.st.session.run.RunID, c.st.ask.name()
		if entries[i].Author == "" {
			entries[i].Author = c.st.ask.name()
		}
	}
	storableEntries(entries)
}

// queue keeps steps to be stored with the run's next store, which comes before its next model call, before an
// approved call runs, and at its end: a model response is stored with the tool results that answer it, the
// input with whatever comes first.
func (c *conversationRun) queue(entries ...storage.Entry) {
	c.stamp(entries)
	j := &c.journal
	j.mu.Lock()
	j.pending = append(j.pending, entries...)
	j.mu.Unlock()
}

// queueStart queues the start of the run and its input, to be stored before anything else the run does.
func (c *conversationRun) queueStart(entries ...storage.Entry) {
	c.queue(entries...)
	c.journal.started = true
}

// hasPending reports whether steps wait to be stored.
func (c *conversationRun) hasPending() bool {
	j := &c.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending) > 0
}

// store1 stores the queued steps and entries under the run's claim in one call, and with release, gives the
// claim up in it too and settles the run's budget, ends, all in the store's EndRun. A run whose claim is lost
// stores nothing. Steps that could not be stored stay queued, for the end of the run to try again.
func (c *conversationRun) store1(ctx context.Context, op string, release bool, ends []storage.BudgetReservation, entries []storage.Entry) error {
	c.stamp(entries)
	j := &c.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	claim, lost := c.lease.forStore(release)
	if lost != nil {
		return lost
	}
	all := entries
	if len(j.pending) > 0 {
		all = append(j.pending[:len(j.pending):len(j.pending)], entries...)
	}
	if len(all) == 0 {
		return nil
	}
	var err error
	if release {
		_, err = c.runs.EndRun(ctx, storage.RunEnd{Claim: claim, Entries: all, Settle: ends})
		j.released = err == nil
	} else {
		_, err = c.store.Append(ctx, claim, all...)
	}
	if err != nil {
		return &ConversationError{ConversationID: c.id, Op: op, Err: err}
	}
	j.pending = nil
	return nil
}

// unstored returns the messages at the end of msgs that the run added and has not stored: tool messages with a
// result not stored yet, and assistant messages whose calls were not stored (the calls the approval stage ran).
// It looks back from the end to the first message that is surely stored: a user message, an assistant message
// without calls, or a tool message whose results are all stored. Model responses, stored as they arrived, are
// skipped.
func (c *conversationRun) unstored(msgs []chat.Message) []chat.Message {
	var out []chat.Message
scan:
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		switch m.Role {
		case chat.RoleTool:
			stored := true
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok && !c.journal.knownResults[r.CallID] {
					stored = false
				}
			}
			if stored {
				break scan
			}
			out = append(out, m)
		case chat.RoleAssistant:
			calls, known := 0, 0
			for _, p := range m.Parts {
				if tc, ok := p.(chat.ToolCall); ok {
					calls++
					if c.journal.knownCalls[tc.ID] {
						known++
					}
				}
			}
			switch {
			case calls == 0:
				break scan
			case known == 0:
				m = withAuthor(m, c.st.ask.name())
				out = append(out, m)
			}
		default:
			break scan
		}
	}
	slices.Reverse(out)
	return out
}
