package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
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

// relay returns the store as an EventRelay, or false, quietly, for a store that relays nothing.
func (r *rec) relay() (storage.EventRelay, bool) {
	relay, ok := r.s.(storage.EventRelay)
	return relay, ok
}

// publish publishes events numbered from first on in one call.
func (r *rec) publish(ctx context.Context, sid, id string, first int64, events ...[]byte) bool {
	relay, _ := r.relay()
	evs := make([]storage.Event, len(events))
	for i, e := range events {
		evs[i] = storage.Event{ID: first + int64(i), Data: e}
	}
	return r.ok(relay.Publish(ctx, sid, id, evs), "Publish")
}

// head claims the conversation, reads its event head, and returns the claim.
func (r *rec) head(sid, id string) (storage.Claim, int64, bool) {
	c, ok := r.claim(sid, id)
	if !ok {
		return c, 0, false
	}
	rng, err := r.s.EventRange(r.ctx, sid, id)
	if !r.ok(err, "EventRange") || !r.truef(rng.Head == c.EventHead, "EventRange's head %d, the claim says %d", rng.Head, c.EventHead) ||
		!r.truef(rng.Base <= rng.Head, "EventRange: base %d above head %d", rng.Base, rng.Head) {
		return c, 0, false
	}
	return c, rng.Head, true
}

// made creates the conversation, with an entry, and returns its event head.
func (r *rec) made(sid, id string) (int64, bool) {
	c, head, ok := r.head(sid, id)
	if !ok {
		return 0, false
	}
	_, err := r.s.Append(r.ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)})
	return head, r.ok(err, "Append") && r.ok(r.s.Release(r.ctx, c), "Release")
}

// ruleEventHead: a conversation's event head starts at the time of its first claim, is kept by the release
// (never lowered), and a conversation deleted and created again starts above the deleted one's.
func ruleEventHead(r *rec) {
	s := r.s
	sid, other := r.tenant("a"), r.tenant("b")
	id := r.conv(sid, "numbered")
	r.conv(other, id)
	_, err := s.EventRange(r.ctx, sid, id)
	if !r.is(err, storage.ErrNotFound, "EventRange of a conversation never claimed") {
		return
	}
	before := time.Now().Add(-time.Hour).UnixMicro() // the store's clock may differ a little from ours
	oc, otherHead, ok := r.head(other, id)
	if !ok {
		return
	}
	if _, err := s.Append(r.ctx, oc, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)}); !r.ok(err, "Append") ||
		!r.ok(s.Release(r.ctx, oc), "Release of the other tenant") {
		return
	}
	c, head, ok := r.head(sid, id)
	if !ok || !r.truef(head > before, "a new conversation's event head %d is not above the time of its claim (%d)", head, before) {
		return
	}
	if _, err := s.Append(r.ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`[]`)}); !r.ok(err, "Append") {
		return
	}
	c.EventHead = head + 7
	if !r.ok(s.Release(r.ctx, c), "Release with a head") {
		return
	}
	c, got, ok := r.head(sid, id)
	if !ok || !r.truef(got == head+7, "after a release with head %d, EventHead is %d", head+7, got) {
		return
	}
	c.EventHead = head + 2 // a release never lowers it
	if !r.ok(s.Release(r.ctx, c), "Release with a lower head") {
		return
	}
	if got, err := s.EventRange(r.ctx, sid, id); !r.ok(err, "EventRange") || !r.truef(got.Head == head+7, "a release lowered the head to %d", got.Head) {
		return
	}
	// Another tenant's conversation of the same id counts its own.
	if got, err := s.EventRange(r.ctx, other, id); !r.ok(err, "EventRange of the other tenant") ||
		!r.truef(got.Head == otherHead, "another tenant's release moved this tenant's event head from %d to %d", otherHead, got.Head) {
		return
	}
	// Deleted and created again: above every id of the deleted one.
	if !r.ok(s.Delete(r.ctx, sid, id), "Delete") {
		return
	}
	time.Sleep(2 * time.Millisecond)
	c, again, ok := r.head(sid, id)
	if ok {
		r.truef(again > head+7, "a conversation created again starts its events at %d, not above the deleted one's %d", again, head+7)
		if rng, err := s.EventRange(r.ctx, sid, id); r.ok(err, "EventRange") {
			r.truef(rng.Base > head+7, "a conversation created again has its base at %d, not above the deleted one's ids", rng.Base)
		}
		_ = s.Release(r.ctx, c)
	}
}

// ruleRelay: a relay hands a watcher every event published after its position, big and binary ones too, in
// order, ids skipping where the publisher skipped, and none of another conversation or tenant.
func ruleRelay(r *rec) {
	relay, ok := r.relay()
	if !ok {
		return
	}
	sid, otherTenant := r.tenant("a"), r.tenant("b")
	id := r.conv(sid, "watched")
	other := r.conv(sid, "other")
	r.conv(otherTenant, id)
	var head int64
	for _, k := range [][2]string{{sid, id}, {sid, other}, {otherTenant, id}} {
		h, ok := r.made(k[0], k[1])
		if !ok {
			return
		}
		if k == [2]string{sid, id} {
			head = h
		}
	}
	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	ch, err := relay.Watch(watchCtx, sid, id, head)
	if !r.ok(err, "Watch") {
		return
	}
	big := []byte(`{"text":"` + strings.Repeat("lorem ipsum ", 6000) + `"}`) // beyond a NOTIFY payload
	binary := []byte{0, 1, 2, 0xff, 0xfe, '\n', 0}
	events := [][]byte{[]byte(`{"delta":"a"}`), big, []byte(`{"delta":"b"}`), binary, {}}
	// Noise that the watcher must not see.
	if !r.publish(ctx, sid, other, head+1, []byte(`"other conversation"`)) || !r.publish(ctx, otherTenant, id, head+1, []byte(`"other tenant"`)) {
		return
	}
	if !r.publish(ctx, sid, id, head+1, events[:2]...) || !r.publish(ctx, sid, id, head+5, events[2:]...) {
		return
	}
	want := []int64{head + 1, head + 2, head + 5, head + 6, head + 7}
	for i, w := range events {
		got, ok := r.next(ctx, ch, fmt.Sprintf("event %d", i+1))
		if !ok {
			return
		}
		if !r.truef(got.ID == want[i] && bytes.Equal(got.Data, w), "event %d: got id %d, %d bytes %.40q, want id %d, %d bytes %.40q",
			i+1, got.ID, len(got.Data), got.Data, want[i], len(w), w) {
			return
		}
	}
	// Publish raises the head, so that a run after a crash numbers above what watchers saw.
	if got, err := r.s.EventRange(ctx, sid, id); r.ok(err, "EventRange") {
		r.truef(got.Head == head+7, "after publishing up to %d, the head is %d", head+7, got.Head)
	}
	// A publisher's ids must increase.
	err = relay.Publish(ctx, sid, id, []storage.Event{{ID: head + 9}, {ID: head + 8}})
	r.is(err, storage.ErrInvalid, "Publish with decreasing ids")
	stop()
	r.closes(ctx, ch, "after its context ended")
}

// ruleRelayResume: a watch from a position returns the kept events after it, then each as it is published.
func ruleRelayResume(r *rec) {
	relay, ok := r.relay()
	if !ok {
		return
	}
	sid := r.tenant("a")
	id := r.conv(sid, "resumed")
	head, ok := r.made(sid, id)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, eventWait)
	defer cancel()
	if !r.publish(ctx, sid, id, head+1, []byte(`1`), []byte(`2`), []byte(`3`), []byte(`4`)) {
		return
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	fromTwo, err := relay.Watch(wctx, sid, id, head+2)
	if !r.ok(err, "Watch after 2") {
		return
	}
	all, err := relay.Watch(wctx, sid, id, head)
	if !r.ok(err, "Watch after 0") {
		return
	}
	now, err := relay.Watch(wctx, sid, id, storage.WatchFromNow)
	if !r.ok(err, "Watch from now") {
		return
	}
	if !r.publish(ctx, sid, id, head+5, []byte(`5`)) {
		return
	}
	for _, w := range []struct {
		name  string
		ch    <-chan storage.Event
		first int64
	}{{"after 2", fromTwo, 3}, {"after 0", all, 1}, {"from now", now, 5}} {
		for want := w.first; want <= 5; want++ {
			e, ok := r.next(ctx, w.ch, "Watch "+w.name)
			if !ok || !r.truef(e.ID == head+want && string(e.Data) == fmt.Sprint(want), "Watch %s: event %d %q, want %d", w.name, e.ID-head, e.Data, want) {
				return
			}
		}
	}
}

// ruleRelayTenancy: a watcher of one tenant sees nothing another tenant publishes under the same conversation id.
func ruleRelayTenancy(r *rec) {
	relay, ok := r.relay()
	if !ok {
		return
	}
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
	ch, err := relay.Watch(wctx, b, id, 0)
	if !r.ok(err, "Watch of b") {
		return
	}
	if !r.publish(ctx, a, id, 3, []byte(`"a3"`)) || !r.publish(ctx, b, id, 1, []byte(`"b1"`)) {
		return
	}
	e, ok := r.next(ctx, ch, "Watch of b")
	if ok {
		r.truef(e.ID == 1 && string(e.Data) == `"b1"`, "Watch of b: event %d %s, want 1 \"b1\"", e.ID, e.Data)
	}
}

// ruleRelayConcurrent: Publish calls of many conversations of two tenants at once, which a store may write
// together, each reach the watchers of their own conversation only, every event once and in order, and raise their
// own conversation's head.
func ruleRelayConcurrent(r *rec) {
	relay, ok := r.relay()
	if !ok {
		return
	}
	const convs, batches, perBatch = 6, 8, 3
	type stream struct {
		sid, id string
		head    int64
		ch      <-chan storage.Event
	}
	var streams []*stream
	for _, t := range []string{"a", "b"} {
		sid := r.tenant(t)
		for i := range convs {
			s := &stream{sid: sid, id: r.conv(sid, fmt.Sprintf("crowd-%d", i))} // the same ids in both tenants
			h, ok := r.made(s.sid, s.id)
			if !ok {
				return
			}
			s.head = h
			streams = append(streams, s)
		}
	}
	ctx, cancel := context.WithTimeout(r.ctx, 4*eventWait)
	defer cancel()
	for _, s := range streams {
		ch, err := relay.Watch(ctx, s.sid, s.id, s.head)
		if !r.ok(err, "Watch") {
			return
		}
		s.ch = ch
	}
	body := func(s *stream, n int) []byte {
		return []byte(fmt.Sprintf(`{"tenant":%q,"conv":%q,"n":%d}`, s.sid, s.id, n))
	}
	var wg sync.WaitGroup
	for _, s := range streams {
		wg.Go(func() {
			for k := range batches {
				evs := make([]storage.Event, perBatch)
				for j := range evs {
					n := k*perBatch + j + 1
					evs[j] = storage.Event{ID: s.head + int64(n), Data: body(s, n)}
				}
				if !r.ok(relay.Publish(ctx, s.sid, s.id, evs), "Publish of "+s.sid+"/"+s.id) {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, s := range streams {
		for n := 1; n <= batches*perBatch; n++ {
			e, ok := r.next(ctx, s.ch, fmt.Sprintf("%s/%s event %d", s.sid, s.id, n))
			if !ok {
				return
			}
			if !r.truef(e.ID == s.head+int64(n) && bytes.Equal(e.Data, body(s, n)), "%s/%s: event %d %s, want %d %s",
				s.sid, s.id, e.ID-s.head, e.Data, n, body(s, n)) {
				return
			}
		}
		if rng, err := r.s.EventRange(ctx, s.sid, s.id); r.ok(err, "EventRange") {
			r.truef(rng.Head == s.head+batches*perBatch, "%s/%s: the head is %d after publishing up to %d",
				s.sid, s.id, rng.Head-s.head, batches*perBatch)
		}
	}
}
