package agenthttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestOpenAIClient runs the handler over the real openai-go client, against the local server of its wire format:
// a streamed run with a call that waits for approval, its answer, and the tool's result.
func TestOpenAIClient(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Name: "close_ticket", Arguments: `{"number":4711,"reason":"replaced the toner"}`}}},
		openaitest.Reply{Text: "Ticket 4711 is closed."},
	)
	defer srv.Close()
	e := newEnv(t, memory.New(), func(c *agent.Config, _ *agenthttp.Options) {
		c.Client = openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	})
	sse := map[string]string{"Accept": "text/event-stream"}
	resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "Close 4711, please."}, header: sse})
	is.Equal(resp.status, http.StatusCreated)
	evs := without(events(t, resp.body), "usage")
	is.Equal(names(evs), []string{"approval_request", "end"})
	var end runResult
	is.True(strings.Contains(evs[0].data, `"arguments":{"number":4711,"reason":"replaced the toner"}`))
	id := strings.TrimPrefix(resp.header.Get("Location"), "conversations/")
	var req0 struct {
		ID string `json:"id"`
	}
	decodeEvent(t, evs[0], &req0)

	resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, header: sse,
		body: map[string]any{"approvals": []map[string]any{{"request_id": req0.ID, "approved": true}}}})
	is.Equal(resp.status, http.StatusOK)
	evs = without(events(t, resp.body), "usage")
	got := names(evs)
	is.Equal(got[0], "tool_call")   // the approved call, as it runs
	is.Equal(got[1], "tool_result") // its result
	is.Equal(got[len(got)-1], "end")
	decodeEvent(t, evs[len(evs)-1], &end)
	is.Equal(end.Text, "Ticket 4711 is closed.")
	tk, _, _ := e.desk.Get(context.Background(), 4711)
	is.Equal(tk.Status, tickets.StatusClosed)
	is.Equal(len(srv.Requests()), 2)
}
