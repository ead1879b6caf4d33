package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
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
			return chattest.Calls(chattest.Call("call-handoff", "handoff_to_second_desk", `{}`)), nil
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

// A case saved from a conversation of an agent with an answer type checks the answer's fields: it loads, and
// runs and passes on a fresh host that answers the same; on one whose answer differs in a field it fails.
func TestEvalCaseOfTypedAnswer(t *testing.T) {
	is := is.New(t)
	e := newEnvOf(t, memory.New(), &triageDesk{}, withEvalCases)
	id := e.create(tokenA, "triage 4711").ConversationID
	resp := e.do(req{method: "GET", path: "/conversations/" + id + "/eval-case?name=triaged", token: tokenA})
	is.Equal(resp.status, http.StatusOK)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "triaged.json"), resp.body, 0o600))
	cases, err := eval.Load(os.DirFS(dir), ".")
	is.NoErr(err)
	is.Equal(len(cases), 1)
	c := cases[0]
	is.Equal(c.Expect.Answer, nil)
	is.Equal(len(c.Expect.Fields), 3)
	is.Equal(c.Expect.Fields[0].Path, "/decision")
	is.Equal(string(c.Expect.Fields[0].Equals), `"close"`)

	triager := func(t *testing.T, answer string) *agent.Host {
		host, err := agent.NewHost(&triageDesk{}, agent.Config{
			Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
			Client: chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				return chattest.Text(answer), nil
			}),
			Store: memory.New(),
		})
		if err != nil {
			t.Fatal(err)
		}
		return host
	}
	results := eval.RunCases(t, cases, func(t *testing.T, _ *eval.Case) *agent.Host { return triager(t, verdictJSON) }, nil)
	is.Equal(len(results), 1)
	is.True(results[0].Passed)
	other := `{"decision": "close", "priority": 3, "reasons": ["The printer works again."]}`
	res, err := eval.Evaluate(t.Context(), triager(t, other), c, nil)
	is.NoErr(err)
	is.True(!res.Passed) // the priority differs
}
