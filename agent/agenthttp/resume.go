package agenthttp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
)

// uiResume answers the AI SDK's reconnect to a running stream (GET {api}/{id}/stream, what Chat.resumeStream and
// useChat's resume option ask the default transport for): 204 when no run of the tenant's conversation is live,
// which is also the answer for a conversation that does not exist or is another tenant's; otherwise the live run
// as a UI message stream, from its first update (the default transport reads a resumed stream as a replay of the
// whole message) to its end, from whichever instance runs it.
//
// The replayed stream's start names no message id, so the chat keeps the id of the message it was streaming: a
// chat whose connection dropped rebuilds that message in place, and a chat loaded afresh adds it.
func (h *Handler) uiResume(w http.ResponseWriter, r *http.Request) error {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return err
	}
	id, p := r.PathValue("id"), principal(r)
	// The event head is read before the entries: a run live in the entries numbers its events after it, so
	// watching from it replays the run whole, even when the run ends before the watch begins.
	rng, err := h.opts.Store.EventRange(r.Context(), p.SettingsID, id)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	live, err := liveRun(r.Context(), h.opts.Store, p.SettingsID, id)
	if err != nil {
		return err
	}
	if live == "" {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	// A client that stops reading is cut off at its first write past the deadline, which ends the replay; the
	// run goes on.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &uiSink{h: h, w: w, r: r, held: heldCalls{}, sent: map[string]bool{}, stream: h.newSSE(w, func(hd http.Header) {
		hd.Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
	})}
	s.stream.onGone = cancel
	// Answer at once, so the client knows the stream is accepted before the run's next update.
	s.stream.mu.Lock()
	s.stream.begin(h.opts.Heartbeat)
	s.stream.write([]byte(": resuming\n\n"))
	s.stream.mu.Unlock()
	// A run that is not streamed gives watchers its messages only when it ends while watched; one that ended
	// before the watch began gives nothing. The entries tell when the run is over, and the replay ends then.
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for t := time.NewTicker(resumePoll); ; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			if now, err := liveRun(ctx, h.opts.Store, p.SettingsID, id); err == nil && now != live {
				t.Stop()
				select { // the run's last events are on their way: a little time for them
				case <-ctx.Done():
				case <-time.After(resumePoll):
					cancel()
				}
				return
			}
		}
	}()
	defer func() { cancel(); <-ended }()
	for u, err := range host.WatchAfter(ctx, p.SettingsID, id, rng.Head) {
		if err != nil {
			s.end(&agent.Result{}, err)
			return nil
		}
		if !u.RunEnded {
			s.update(u.Update)
			continue
		}
		s.end(h.ended(r.Context(), host, p.SettingsID, id), runError(u.RunError))
		return nil
	}
	if s.started && r.Context().Err() == nil {
		s.end(h.ended(r.Context(), host, p.SettingsID, id), nil) // the run ended without its end reaching the watch
		return nil
	}
	s.stream.close() // nothing to replay: the chat keeps what it holds
	return nil
}

// resumePoll is how often a replay checks that the run it replays still holds the conversation.
const resumePoll = 250 * time.Millisecond

// ended returns what a run that ended left: its pending requests and mode, as stored.
func (h *Handler) ended(ctx context.Context, host *agent.Host, settingsID, id string) *agent.Result {
	res := &agent.Result{}
	if st, err := host.LoadConversation(ctx, settingsID, id); err == nil {
		res.Pending, res.Mode = st.Pending, st.Mode
	}
	return res
}

func runError(text string) error {
	if text == "" {
		return nil
	}
	return errors.New(text)
}

// liveRun returns the id of the run that holds the tenant's conversation now, as its stored entries show it (a
// run's start with no end after it), or "" when none does or the conversation does not exist.
func liveRun(ctx context.Context, store storage.Store, settingsID, id string) (string, error) {
	entries, err := store.Load(ctx, settingsID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		switch entries[i].Type {
		case storage.EntryRunEnd:
			return "", nil
		case storage.EntryRunStart:
			return entries[i].RunID, nil
		}
	}
	return "", nil
}
