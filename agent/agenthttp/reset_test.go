package agenthttp_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// TestWatchReset resumes a watch after an event the store has pruned: the stream says reset, then follows the
// conversation from now on, instead of ending or pretending nothing was missed.
func TestWatchReset(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID

		// Push the conversation's first events out of what the store keeps.
		ctx := context.Background()
		var first int64
		for i := 0; i < storage.MaxEvents+5; i++ {
			n, err := s.Publish(ctx, tenantA, id, []byte(`{"kind":"filler"}`))
			is.NoErr(err)
			if first == 0 {
				first = n
			}
		}

		lines, resp := e.watch(id, map[string]string{"Last-Event-ID": strconv.FormatInt(first, 10)})
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
		is.Equal(names(evs), []string{"reset"}) // nothing before the reset: the filler is not an update

		// The stream stays open and follows the next run.
		for try := 0; !strings.Contains(seen.String(), "event: text"); try++ {
			if try == 20 {
				t.Fatalf("after the reset the watcher saw no run: %s", seen.String())
			}
			run := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
				body: map[string]any{"text": "search printer"}, header: map[string]string{"Accept": "text/event-stream"}})
			is.Equal(run.status, http.StatusOK)
			select {
			case l, ok := <-lines:
				if ok {
					seen.WriteString(l)
				}
			case <-time.After(time.Second):
			}
		}
		read("event: tool_result")
		is.Equal(strings.Count(seen.String(), "event: reset"), 1)
	})
}
