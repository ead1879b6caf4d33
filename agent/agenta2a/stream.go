package agenta2a

import (
	"context"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// coalesceWindow is how long a stream gathers text deltas into one artifact update, as the watch stream does.
const coalesceWindow = 50 * time.Millisecond

// writeTimeout bounds how long a run waits for a stream's client to take an event before it goes on without it.
const writeTimeout = 30 * time.Second

// artifacts turns a run's updates into artifact updates of the answer: text coalesced over coalesceWindow, each
// model response's text replacing the one before (append false on its first chunk).
type artifacts struct {
	ref      taskRef
	text     strings.Builder
	appendTo bool // the next chunk appends to the artifact
	last     time.Time
	emit     func(a2a.Event)
}

// update takes one update of the run.
func (a *artifacts) update(u chat.Update) {
	if u.Steering || u.Progress != nil || u.Role == chat.RoleTool || u.Role == chat.RoleUser {
		return
	}
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.Text:
			a.text.WriteString(p.Text)
		case chat.ToolCall:
			// The text before the call goes first; then the call, as a working status a client can show.
			a.flush()
			id := a.ref.id()
			a.emit(&a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: a.ref.conversationID, Status: a2a.TaskStatus{
				State: a2a.TaskStateWorking,
				Message: &a2a.Message{ID: string(id) + "/c/" + p.ID, ContextID: a.ref.conversationID, TaskID: id, Role: a2a.MessageRoleAgent,
					Parts: a2a.ContentParts{a2a.DataPart{Data: map[string]any{DataToolCall: map[string]any{"callId": p.ID, "tool": p.Name}}}}},
			}})
		}
	}
	if u.FinishReason != "" {
		a.flush()
		a.appendTo = false // the next response's text is a new answer
		return
	}
	if time.Since(a.last) >= coalesceWindow {
		a.flush()
	}
}

// flush sends the text gathered, if any.
func (a *artifacts) flush() {
	a.last = time.Now()
	if a.text.Len() == 0 {
		return
	}
	ev := &a2a.TaskArtifactUpdateEvent{TaskID: a.ref.id(), ContextID: a.ref.conversationID, Append: a.appendTo,
		Artifact: &a2a.Artifact{ID: answerArtifactID, Name: "answer", Parts: []a2a.Part{a2a.TextPart{Text: a.text.String()}}}}
	a.text.Reset()
	a.appendTo = true
	a.emit(ev)
}

// final sends a task's last events: its answer whole, as stored, and its final status.
func final(v *taskView, emit func(a2a.Event)) {
	if art := artifactOf(v, nil); art != nil {
		emit(&a2a.TaskArtifactUpdateEvent{TaskID: v.ref.id(), ContextID: v.ref.conversationID, Artifact: art, LastChunk: true})
	}
	emit(&a2a.TaskStatusUpdateEvent{TaskID: v.ref.id(), ContextID: v.ref.conversationID, Status: statusOf(v), Final: true})
}

// outbox hands a run's events to its stream's client without ever holding the run up for long: when the client
// is gone, or does not take an event within writeTimeout, the run goes on without it.
type outbox struct {
	ch   chan a2a.Event
	gone chan struct{}
}

func newOutbox() *outbox { return &outbox{ch: make(chan a2a.Event, 64), gone: make(chan struct{})} }

func (o *outbox) send(ev a2a.Event) {
	select {
	case <-o.gone:
		return
	default:
	}
	t := time.NewTimer(writeTimeout)
	defer t.Stop()
	select {
	case o.ch <- ev:
	case <-o.gone:
	case <-t.C:
	}
}

// drain yields the events to the client until the outbox closes or the client leaves.
func (o *outbox) drain(ctx context.Context, yield func(a2a.Event, error) bool) {
	defer close(o.gone)
	for {
		select {
		case ev, ok := <-o.ch:
			if !ok {
				return
			}
			if !yield(ev, nil) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// follow runs a turn and streams it: the task, the answer's text as it comes, the final status. The run goes on in
// its own goroutine, to its end, whether or not the client stays.
func (h *Handler) follow(ctx context.Context, t *turn, yield func(a2a.Event, error) bool) {
	start := taskOf(t.lr.start, nil)
	out := newOutbox()
	done := make(chan error, 1)
	go func() {
		defer close(out.ch)
		art := &artifacts{ref: t.ref, emit: out.send, last: time.Now()}
		v, err := t.run(art.update)
		if err != nil {
			done <- err
			return
		}
		art.flush()
		final(v, out.send)
		done <- nil
	}()
	if !yield(start, nil) {
		close(out.gone)
		return
	}
	out.drain(ctx, yield)
	select {
	case err := <-done:
		if err != nil {
			yield(nil, err)
		}
	default:
	}
}

// resubscribe streams a stored task: as it stands, then, while its run goes on, the run's text whichever instance
// runs it, then its final status, read from the store. The store is read again every Options.Poll, for a run
// that ended where no watcher saw it (an instance that crashed).
func (h *Handler) resubscribe(ctx context.Context, v *taskView, yield func(a2a.Event, error) bool) {
	if !yield(taskOf(v, nil), nil) || v.state() != a2a.TaskStateWorking {
		return
	}
	settingsID := principal(ctx).SettingsID
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	updates := make(chan chat.Update, 64)
	go func() {
		defer close(updates)
		for u, err := range h.host.WatchAfter(wctx, settingsID, v.ref.conversationID, storage.WatchFromNow) {
			if err != nil || u.RunEnded {
				return
			}
			select {
			case updates <- u.Update:
			case <-wctx.Done():
				return
			}
		}
	}()
	out := newOutbox()
	go func() {
		defer close(out.ch)
		art := &artifacts{ref: v.ref, emit: out.send, last: time.Now()}
		tick := time.NewTicker(h.opts.Poll)
		defer tick.Stop()
		watching := updates
		for {
			select {
			case <-wctx.Done():
				return
			case u, ok := <-watching:
				if ok {
					art.update(u)
					continue
				}
				watching = nil // the run ended, or the watch fell behind: the store says which
			case <-tick.C:
			}
			now, _, err := h.loadTask(wctx, v.ref.id())
			if err != nil {
				return
			}
			if now.state() != a2a.TaskStateWorking {
				art.flush()
				final(now, out.send)
				return
			}
		}
	}()
	out.drain(ctx, yield)
}
