package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// handingOff is a Desk, which answers with text, that hands every conversation to Second Desk, which answers
// with a Verdict.
func handingOff(t *testing.T) *env {
	t.Helper()
	s := memory.New()
	second, err := agent.NewHost(&secondDesk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Client: chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
			return chattest.Text(verdictJSON), nil
		}),
		Store: s,
	})
	if err != nil {
		t.Fatal(err)
	}
	return newEnvOf(t, s, &desk{}, func(cfg *agent.Config, _ *agenthttp.Options) {
		cfg.Handoffs = []agent.Handoff{{To: second}}
		cfg.Client = chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
			return chattest.Calls(chattest.Call("call-handoff", agent.HandoffToolPrefix+"second_desk", `{}`)), nil
		})
	})
}

// TestAnswerStreamsAfterHandoff checks that a run handed to an agent with an answer type ends, on AG-UI and the AI
// SDK's stream, with that agent's answer under that agent's answer type, though the agent the request named
// answers with text.
func TestAnswerStreamsAfterHandoff(t *testing.T) {
	is := is.New(t)
	e := handingOff(t)

	resp := e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA, body: map[string]any{"threadId": "t-handed",
		"runId": "r1", "messages": []map[string]any{{"id": "u1", "role": "user", "content": "triage 4711"}}}})
	is.Equal(resp.status, http.StatusOK)
	var snapshot struct {
		Snapshot struct {
			Answer *answerEvent `json:"answer"`
		} `json:"snapshot"`
	}
	for _, ev := range events(t, resp.body) {
		var head struct {
			Type string `json:"type"`
		}
		decodeEvent(t, ev, &head)
		if head.Type == "STATE_SNAPSHOT" {
			decodeEvent(t, ev, &snapshot)
		}
	}
	is.True(snapshot.Snapshot.Answer != nil && snapshot.Snapshot.Answer.Final)
	is.True(sameJSON(t, snapshot.Snapshot.Answer.Value, []byte(verdictJSON)))
	is.Equal(snapshot.Snapshot.Answer.Type, "Verdict") // Second Desk's, not the requested Desk's none

	resp = e.do(req{method: "POST", path: "/agents/Desk/ui-message-stream", token: tokenA, body: map[string]any{
		"id": "c-handed", "trigger": "submit-message", "messages": []any{userMessage("triage 4711")}}})
	is.Equal(resp.status, http.StatusOK)
	cs, done := uiChunks(t, resp.body)
	is.True(done)
	var last *answerEvent
	for _, c := range cs {
		if c["type"] != "data-answer" {
			continue
		}
		b, _ := json.Marshal(c["data"])
		last = &answerEvent{}
		is.NoErr(json.Unmarshal(b, last))
	}
	is.True(last != nil && last.Final)
	is.True(sameJSON(t, last.Value, []byte(verdictJSON)))
	is.Equal(last.Type, "Verdict")
}
