package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// eventWait bounds how long a rule waits for an event.
const eventWait = 3 * time.Second

// next reads the next event of ch, reporting a closed channel or a timeout.
func (r *rec) next(ctx context.Context, ch <-chan storage.Event, what string) (storage.Event, bool) {
	select {
	case e, ok := <-ch:
		return e, r.truef(ok, "%s: the watch closed", what)
	case <-ctx.Done():
		r.failf("%s: no event in time", what)
		return storage.Event{}, false
	}
}

// closes reports whether ch closes, with nothing on it, before ctx ends.
func (r *rec) closes(ctx context.Context, ch <-chan storage.Event, what string) bool {
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return true
			}
			r.failf("%s: unexpected event %d %.40q", what, e.ID, e.Data)
			return false
		case <-ctx.Done():
			r.failf("%s: the watch did not close", what)
			return false
		}
	}
}

// publish publishes each of events and reports whether the ids Publish
// returned are first, first+1, ...
func (r *rec) publish(ctx context.Context, sid, id string, first int64, events ...[]byte) bool {
	for i, e := range events {
		got, err := r.s.Publish(ctx, sid, id, e)
		if !r.ok(err, "Publish") || !r.truef(got == first+int64(i), "Publish returned id %d, want %d", got, first+int64(i)) {
			return false
		}
	}
	return true
}

func ruleWatch(r *rec) {
	s := r.s
	sid := r.tenant("a")
	id := r.conv(sid, "watched")
	other := r.conv(sid, "other")
	otherTenant := r.tenant("b")
	r.conv(otherTenant, id)

	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	ch, err := s.Watch(watchCtx, sid, id, storage.WatchFromNow)
	if !r.ok(err, "Watch") {
		return
	}
	big := []byte(`{"text":"` + strings.Repeat("lorem ipsum ", 6000) + `"}`) // beyond a NOTIFY payload
	binary := []byte{0, 1, 2, 0xff, 0xfe, '\n', 0}
	events := [][]byte{[]byte(`{"delta":"a"}`), big, []byte(`{"delta":"b"}`), binary, {}}
	// Noise that the watcher must not see; each conversation counts its own ids.
	if !r.publish(ctx, sid, other, 1, []byte(`"other conversation"`)) || !r.publish(ctx, otherTenant, id, 1, []byte(`"other tenant"`)) {
		return
	}
	if !r.publish(ctx, sid, id, 1, events...) {
		return
	}
	for i, want := range events {
		got, ok := r.next(ctx, ch, fmt.Sprintf("event %d", i+1))
		if !ok {
			return
		}
		if !r.truef(got.ID == int64(i+1) && bytes.Equal(got.Data, want), "event %d: got id %d, %d bytes %.40q, want %d bytes %.40q",
			i+1, got.ID, len(got.Data), got.Data, len(want), want) {
			return
		}
	}
	stop()
	r.closes(ctx, ch, "after its context ended")
}

func ruleWatchResume(r *rec) {
	s := r.s
	sid := r.tenant("a")
	id := r.conv(sid, "resumed")
	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	if !r.publish(ctx, sid, id, 1, []byte(`1`), []byte(`2`), []byte(`3`), []byte(`4`)) {
		return
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	fromTwo, err := s.Watch(wctx, sid, id, 2)
	if !r.ok(err, "Watch after 2") {
		return
	}
	all, err := s.Watch(wctx, sid, id, 0)
	if !r.ok(err, "Watch after 0") {
		return
	}
	now, err := s.Watch(wctx, sid, id, storage.WatchFromNow)
	if !r.ok(err, "Watch from now") {
		return
	}
	if !r.publish(ctx, sid, id, 5, []byte(`5`)) {
		return
	}
	for _, w := range []struct {
		name  string
		ch    <-chan storage.Event
		first int64
	}{{"after 2", fromTwo, 3}, {"after 0", all, 1}, {"from now", now, 5}} {
		for want := w.first; want <= 5; want++ {
			e, ok := r.next(ctx, w.ch, "Watch "+w.name)
			if !ok || !r.truef(e.ID == want && string(e.Data) == fmt.Sprint(want), "Watch %s: event %d %q, want %d", w.name, e.ID, e.Data, want) {
				return
			}
		}
	}
	// Resuming at the last event waits for the next one.
	last, err := s.Watch(wctx, sid, id, 5)
	if !r.ok(err, "Watch after the last") || !r.publish(ctx, sid, id, 6, []byte(`6`)) {
		return
	}
	e, ok := r.next(ctx, last, "Watch after the last")
	if ok {
		r.truef(e.ID == 6, "Watch after the last: event %d, want 6", e.ID)
	}
}

func ruleWatchTenancy(r *rec) {
	s := r.s
	a, b := r.tenant("a"), r.tenant("b")
	id := r.conv(a, "walled")
	r.conv(b, id)
	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	if !r.publish(ctx, a, id, 1, []byte(`"a1"`), []byte(`"a2"`)) {
		return
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	ch, err := s.Watch(wctx, b, id, 0)
	if !r.ok(err, "Watch of b") {
		return
	}
	if !r.publish(ctx, a, id, 3, []byte(`"a3"`)) || !r.publish(ctx, b, id, 1, []byte(`"b1"`)) {
		return
	}
	// b's watcher sees b's event as its first, and none of a's.
	e, ok := r.next(ctx, ch, "Watch of b")
	if ok {
		r.truef(e.ID == 1 && string(e.Data) == `"b1"`, "Watch of b: event %d %s, want 1 \"b1\"", e.ID, e.Data)
	}
}

func ruleWatchBehind(r *rec) {
	s := r.s
	sid := r.tenant("a")
	id := r.conv(sid, "behind")
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	n := storage.MaxEvents + 3
	for i := range n {
		if _, err := s.Publish(ctx, sid, id, []byte(`{}`)); !r.ok(err, fmt.Sprintf("Publish %d", i+1)) {
			return
		}
	}
	// Events 1 to 3 are no longer kept: a watcher resuming before them is
	// told (closed early), not handed the later ones as if nothing was missed.
	ctx, cancel = context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	ch, err := s.Watch(wctx, sid, id, 0)
	if r.ok(err, "Watch after 0") {
		r.closes(ctx, ch, "Watch after pruned events")
		r.truef(wctx.Err() == nil, "Watch after pruned events: closed by its context")
	}
	ch, err = s.Watch(wctx, sid, id, 3)
	if r.ok(err, "Watch after 3") {
		e, ok := r.next(ctx, ch, "Watch after 3")
		if ok {
			r.truef(e.ID == 4, "Watch after 3: event %d, want 4, the oldest kept", e.ID)
		}
	}
}
