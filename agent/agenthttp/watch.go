package agenthttp

import (
	"errors"
	"net/http"

	"github.com/typeshift-go/typeshift/agent"
)

// eventReset tells a watcher that reconnected (Last-Event-ID) that the events it missed cannot be replayed: it
// reloads the conversation (GET /conversations/{id}) and follows on from there.
const eventReset = "reset"

// watch follows the live runs of a tenant's conversation as Server-Sent Events: the updates of every streaming
// run, whichever instance runs it (through the store), with heartbeats while nothing happens. Each event has an
// id counting the events of this stream. The store's Watch starts from now, so a client that reconnects with
// Last-Event-ID first gets a reset event: what it missed is in the stored conversation, never replayed twice nor
// silently lost. A watcher that falls behind gets an error event and the stream ends.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request) error {
	id, p := r.PathValue("id"), principal(r)
	host := h.hosts[h.names[0]] // any host watches the shared store
	if _, err := h.conversationState(r.Context(), host, p.SettingsID, id); err != nil {
		return err
	}
	stream := newSSE(w, nil)
	defer stream.close()
	sink := &nativeSink{h: h, w: w, r: r, id: id, stream: stream}
	updates := host.Watch(r.Context(), p.SettingsID, id)
	if r.Header.Get("Last-Event-ID") != "" {
		sink.send(eventReset, map[string]string{"reason": "the events since the last one seen are not kept: reload the conversation"})
	} else {
		// Answer at once, so the client knows the stream is accepted before the first update arrives.
		stream.mu.Lock()
		stream.begin(h.opts.Heartbeat)
		stream.write([]byte(": watching\n\n"))
		stream.mu.Unlock()
	}
	for u, err := range updates {
		if err != nil {
			if errors.Is(err, agent.ErrWatchBehind) {
				sink.send(eventError, problemOf(err))
			}
			return nil
		}
		sink.update(u)
	}
	return nil
}
