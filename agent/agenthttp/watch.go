package agenthttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
)

// eventReset tells a watcher that resumed after an event the store no longer keeps that it cannot be replayed: it
// reloads the conversation (GET /conversations/{id}) and follows on from now.
const eventReset = "reset"

// eventRunEnd tells a watcher that a run of the conversation ended, and with which error, if any: the stored
// conversation now holds everything the run said.
const eventRunEnd = "run_end"

// watch follows the live runs of a tenant's conversation as Server-Sent Events: the updates of every streaming
// run, whichever instance runs it (through the store), text coalesced over some tens of milliseconds, each run's
// end (run_end), with heartbeats while nothing happens. An event's id is
// the store's id of the update it belongs to, on the update's last event, so a client that reconnects with
// Last-Event-ID resumes after the last update it received whole: nothing repeated, nothing lost. When the store
// no longer keeps that update, a reset event says so and the stream follows on from now. A watcher that falls
// behind gets an error event and the stream ends.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request) error {
	id, p := r.PathValue("id"), principal(r)
	host := h.hosts[h.names[0]] // any host watches the shared store
	after := storage.WatchFromNow
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return badRequest("Last-Event-ID %q is not an event id of this stream", v)
		}
		after = n
	}
	if _, err := h.conversationState(r.Context(), host, p.SettingsID, id); err != nil {
		return err
	}
	if after == storage.WatchFromNow {
		// "From now" is now, before the stream is accepted below, not whenever the watch reads the head: a run
		// that starts after the client was told the stream is accepted, and ends before the watch gets going,
		// numbers its events after this head, and the watch still hands them out.
		rng, err := h.opts.Store.EventRange(r.Context(), p.SettingsID, id)
		switch {
		case err == nil:
			after = rng.Head
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
	}
	// A watcher that stops reading is cut off at its first write past the deadline, which ends the watch.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream := h.newSSE(w, nil)
	stream.onGone = cancel
	defer stream.close()
	// Answer at once, so the client knows the stream is accepted before the first update arrives.
	stream.mu.Lock()
	stream.begin(h.opts.Heartbeat)
	stream.write([]byte(": watching\n\n"))
	stream.mu.Unlock()
	sink := &nativeSink{h: h, w: w, r: r, id: id, stream: stream}
	resets := 0
	for {
		reset := false
		for u, err := range host.WatchAfter(ctx, p.SettingsID, id, after) {
			if err != nil {
				if errors.Is(err, agent.ErrWatchBehind) && resets < maxResets {
					// Updates after the last one seen are gone: say so, then follow from now.
					sink.collected = nil
					sink.emit(eventReset, map[string]string{"reason": "the events after the last one seen are no longer kept: reload the conversation"}, "")
					after, reset = storage.WatchFromNow, true
					resets++
					break
				}
				sink.emit(eventError, problemOf(err), "")
				return nil
			}
			resets = 0
			if u.RunEnded {
				end := map[string]string{"run_id": u.RunID}
				if u.RunError != "" {
					end["error"] = u.RunError
				}
				sink.emit(eventRunEnd, end, strconv.FormatInt(u.ID, 10))
				continue
			}
			sink.collecting = true
			sink.update(u.Update)
			sink.collecting = false
			sink.flushCollected(strconv.FormatInt(u.ID, 10))
		}
		if !reset || ctx.Err() != nil {
			return nil
		}
	}
}

// maxResets bounds the resets in a row, with no update between them, before a watch ends with an error: a store
// that keeps failing ends the stream rather than resetting it for ever.
const maxResets = 3
