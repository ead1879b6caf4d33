package agenthttp_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
)

// TestWatchReset resumes a watch after an event id of a conversation that was deleted and created again under the
// same client-chosen id: the stream says reset, then follows the new conversation from now on, instead of skipping
// its first events or pretending nothing was missed.
func TestWatchReset(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		ctx := context.Background()
		id := e.create(tokenA, "search printer").ConversationID
		runIn := func() {
			t.Helper()
			run := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
				body: map[string]any{"text": "search printer"}, header: map[string]string{"Accept": "text/event-stream"}})
			is.Equal(run.status, http.StatusOK)
		}
		runIn()
		first, err := s.EventRange(ctx, tenantA, id)
		is.NoErr(err)
		is.Equal(e.do(req{method: "DELETE", path: "/conversations/" + id, token: tokenA}).status, http.StatusNoContent)
		// The same id, a new conversation: as a client that names its conversations (AG-UI's threads) makes it.
		_, err = e.host.Run(ctx, agent.Text("hello"), agent.Conversation(id), agent.SettingsID(tenantA))
		is.NoErr(err)
		again, err := s.EventRange(ctx, tenantA, id)
		is.NoErr(err)
		is.True(again.Base > first.Head) // the new conversation numbers its events above the deleted one's

		lines, resp := e.watch(id, map[string]string{"Last-Event-ID": strconv.FormatInt(first.Head, 10)})
		is.Equal(resp.StatusCode, http.StatusOK)
		var seen strings.Builder
		read := func(until string) {
			t.Helper()
			deadline := time.After(10 * time.Second)
			for !strings.Contains(seen.String(), until) {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the watch stream ended before %q: %s", until, seen.String())
					}
					seen.WriteString(l)
				case <-deadline:
					t.Fatalf("no %q on the stream: %s", until, seen.String())
				}
			}
		}
		read("event: reset")
		read("reload the conversation\"}\n\n") // the reset event, whole
		evs := events(t, []byte(seen.String()))
		is.Equal(names(evs), []string{"reset"}) // nothing before the reset: the deleted conversation's events are gone

		// The stream stays open and follows the next run.
		for try := 0; !strings.Contains(seen.String(), "event: text"); try++ {
			if try == 20 {
				t.Fatalf("after the reset the watcher saw no run: %s", seen.String())
			}
			runIn()
			select {
			case l, ok := <-lines:
				if ok {
					seen.WriteString(l)
				}
			case <-time.After(time.Second):
			}
		}
		read("event: tool_result")
		read("event: run_end") // the stream says the run ended
		is.Equal(strings.Count(seen.String(), "event: reset"), 1)
	})
}
