package agenthttp

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/typeshift-go/typeshift/agent"
)

// watch follows the live runs of a tenant's conversation as Server-Sent Events: the updates of every streaming
// run, whichever instance runs it (through the store), with heartbeats while nothing happens. Each event has an
// id counting the events of this stream; the stream ends when the client leaves or falls behind (an "error"
// event), after which it reloads the conversation and watches again.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request) error {
	id, p := r.PathValue("id"), principal(r)
	host := h.hosts[h.names[0]] // any host watches the shared store
	if _, err := h.conversationState(r.Context(), host, p.SettingsID, id); err != nil {
		return err
	}
	stream := newSSE(w, nil)
	defer stream.close()
	// Start the stream at once, so the client knows it is following before the first update arrives.
	stream.mu.Lock()
	stream.begin(h.opts.Heartbeat)
	stream.write([]byte(": watching\n\n"))
	stream.mu.Unlock()
	sink := &nativeSink{h: h, w: w, r: r, id: id, stream: stream}
	for u, err := range host.Watch(r.Context(), p.SettingsID, id) {
		if err != nil {
			if errors.Is(err, agent.ErrWatchBehind) {
				sink.send(eventError, problemOf(err))
			}
			return nil
		}
		sink.update(u)
		if u.FinishReason != "" {
			sink.send("finish", map[string]string{"finish_reason": string(u.FinishReason)})
		}
	}
	_ = strconv.Itoa
	return nil
}
