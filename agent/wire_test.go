package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/toolset"
)

// wireHost runs the tickets agent against the local Chat Completions server through the real openai client.
func wireHost(t *testing.T, replies ...openaitest.Reply) (*agent.Host, *openaitest.Server) {
	srv := openaitest.NewServer(replies...)
	t.Cleanup(srv.Close)
	client := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)).WithModel("gpt-test")
	h, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return h, srv
}

// wireMessages returns the messages of a request as the server received them.
func wireMessages(r openaitest.Request) []map[string]any {
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Messages
}

func TestOverTheWire(t *testing.T) {
	is := is.New(t)
	h, srv := wireHost(t,
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{
			{ID: "call_a", Name: "get_ticket", Arguments: `{"number":4711}`},
			{ID: "call_b", Name: "close_ticket", Arguments: `{"number":4711,"reason":"Fixed."}`},
		}},
		openaitest.Reply{Text: "Closed ticket 4711."},
	)
	ctx := context.Background()
	res, err := h.Run(ctx, agent.Text("Close 4711 if it is open."))
	is.NoErr(err)
	is.Equal(len(res.Pending), 1)
	is.Equal(len(srv.Requests()), 1)

	res, err = h.Run(ctx, agent.Messages(res.Messages), agent.Approve(res.Pending[0].ID))
	is.NoErr(err)
	is.Equal(res.Text(), "Closed ticket 4711.")

	// The second request carries both calls, each followed by its result, and nothing of the approval.
	reqs := srv.Requests()
	is.Equal(len(reqs), 2)
	var roles []string
	for _, m := range wireMessages(reqs[1]) {
		roles = append(roles, m["role"].(string))
		if m["role"] == "tool" {
			is.True(m["tool_call_id"] == "call_a" || m["tool_call_id"] == "call_b")
		}
	}
	is.Equal(strings.Join(roles, " "), "system user assistant tool assistant tool")
	is.True(!strings.Contains(string(reqs[1].Body), "approval"))
}

func TestOverTheWireProviderErrors(t *testing.T) {
	is := is.New(t)
	// A wait longer than the retry policy's MaxDelay ends the run at once with the typed error.
	srv := openaitest.NewServer(openaitest.RateLimited(2 * time.Second))
	defer srv.Close()
	client := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test")).WithModel("gpt-test")
	h, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: client,
		Retry: &chat.RetryPolicy{MaxDelay: time.Second}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	var pe *chat.ProviderError
	is.True(errors.As(err, &pe))
	is.Equal(pe.StatusCode, 429)
	is.Equal(pe.RetryAfter, 2*time.Second)
	is.True(errors.Is(err, chat.ErrRateLimited))
	is.Equal(len(srv.Requests()), 1) // neither the host nor the SDK tried again

	// A stream cut halfway ends a streamed run with an error, after the updates that arrived.
	h2, _ := wireHost(t, openaitest.Reply{Text: "This answer is long enough to need several deltas.", TextDelta: 4, CutAfter: 3})
	var texts int
	var last error
	for u, err := range h2.RunStream(context.Background(), agent.Text("x")) {
		if err != nil {
			last = err
			continue
		}
		for _, p := range u.Parts {
			if _, ok := p.(chat.Text); ok {
				texts++
			}
		}
	}
	is.True(errors.Is(last, chat.ErrStreamCut))
	is.True(texts > 0)
}

func TestOfflineTestModel(t *testing.T) {
	is := is.New(t)
	h, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: chattest.NewTestModel(nil)})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("Show me what you can do."))
	is.NoErr(err)
	// The test model calls every offered tool once with arguments valid against its schema: the read-only tools
	// run, close_ticket waits for approval.
	got := results(res.New)
	is.Equal(len(got), 2)
	for _, r := range got {
		is.True(json.Valid(r.Result) || r.Error != "")
	}
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].Call.Name, "close_ticket")
}
