package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// verdict is the answer type of triageDesk.
type verdict struct {
	Decision string   `json:"decision"`
	Priority int      `json:"priority"`
	Reasons  []string `json:"reasons"`
}

// verdictJSON is the answer the tests' model gives for "triage ...", and the answer the clients must end with.
const verdictJSON = `{"decision": "close", "priority": 2, "reasons": ["The printer works again."]}`

// verdictSchema is verdict's schema, as the generator would write it.
const verdictSchema = `{"type":"object","properties":{` +
	`"decision":{"type":"string","enum":["close","answer","escalate"]},` +
	`"priority":{"type":"integer","minimum":1,"maximum":5},` +
	`"reasons":{"type":"array","items":{"$ref":"#/$defs/Reason"},"minItems":1}},` +
	`"required":["decision","priority","reasons"],"additionalProperties":false,` +
	`"$defs":{"Reason":{"type":"string","minLength":1}}}`

// triageDesk is desk answering with a verdict. Its TypeshiftAnswerType stands for the generated one.
type triageDesk struct{ desk }

func (a *triageDesk) Declare() {
	a.desk.Declare()
	agent.Returns[verdict](a)
	a.WithAnswerMode(agent.AnswerNative) // the model's text is the answer, whose partial values stream
}

func (a *triageDesk) TypeshiftAnswerType() agent.AnswerType {
	return agent.AnswerType{Name: "Verdict", Description: "Verdict is what happens to a ticket.",
		Schema: json.RawMessage(verdictSchema),
		Decode: func(data []byte) (any, error) {
			var v verdict
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			return v, nil
		}}
}

// sameJSON reports whether two JSON documents are equal as values.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestAnswerInAgentDescription checks that an agent with an answer type describes it, and one without does not.
func TestAnswerInAgentDescription(t *testing.T) {
	is := is.New(t)
	e := newEnvOf(t, memory.New(), &triageDesk{})
	var got struct {
		Answer *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		} `json:"answer"`
	}
	resp := e.do(req{method: "GET", path: "/agents/Desk", token: tokenA})
	is.Equal(resp.status, http.StatusOK)
	resp.json(t, &got)
	is.True(got.Answer != nil)
	is.Equal(got.Answer.Name, "Verdict")
	is.Equal(got.Answer.Description, "Verdict is what happens to a ticket.")
	is.True(sameJSON(t, got.Answer.Schema, []byte(verdictSchema)))

	plain := newEnv(t, memory.New())
	resp = plain.do(req{method: "GET", path: "/agents/Desk", token: tokenA})
	is.Equal(resp.status, http.StatusOK)
	is.True(!strings.Contains(string(resp.body), `"answer"`)) // an agent that answers with text has no answer type
}

// answerEvent is the data of a native answer event.
type answerEvent struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Final bool            `json:"final"`
}

// TestAnswerEvents checks that a native event stream carries the answer as it fills (each value holding fields of
// the answer, more of them each time), then the accepted answer, which the end event's result holds too.
func TestAnswerEvents(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnvOf(t, s, &triageDesk{})
		resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "triage 4711"},
			header: map[string]string{"Accept": "text/event-stream"}})
		is.Equal(resp.status, http.StatusCreated)
		var answers []answerEvent
		evs := events(t, resp.body)
		for _, ev := range evs {
			if ev.name == "answer" {
				var a answerEvent
				decodeEvent(t, ev, &a)
				answers = append(answers, a)
			}
		}
		is.True(len(answers) >= 2) // partial values, then the accepted answer
		var final map[string]any
		is.NoErr(json.Unmarshal([]byte(verdictJSON), &final))
		fields := 0
		for i, a := range answers {
			is.Equal(a.Type, "Verdict")
			is.Equal(a.Final, i == len(answers)-1) // one accepted answer, the last
			var v map[string]any
			is.NoErr(json.Unmarshal(a.Value, &v))
			is.True(len(v) > fields || a.Final) // a partial value adds fields
			fields = len(v)
			for k, x := range v {
				xb, _ := json.Marshal(x)
				fb, _ := json.Marshal(final[k])
				is.Equal(string(xb), string(fb)) // no field changes later
			}
		}
		is.True(sameJSON(t, answers[len(answers)-1].Value, []byte(verdictJSON)))
		last := evs[len(evs)-1]
		is.Equal(last.name, "end")
		var end struct {
			Answer json.RawMessage `json:"answer"`
		}
		decodeEvent(t, last, &end)
		is.True(sameJSON(t, end.Answer, []byte(verdictJSON)))
	})
}

// TestAnswerInResult checks that a run answered as JSON holds the accepted answer, and that a run of an agent
// that answers with text has none.
func TestAnswerInResult(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnvOf(t, s, &triageDesk{})
		resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "triage 4711"}})
		is.Equal(resp.status, http.StatusCreated)
		var res struct {
			Text   string          `json:"text"`
			Answer json.RawMessage `json:"answer"`
		}
		resp.json(t, &res)
		is.True(sameJSON(t, res.Answer, []byte(verdictJSON)))
		is.Equal(res.Text, verdictJSON) // the answer as the model wrote it

		plain := newEnv(t, s)
		resp = plain.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "hello"}})
		is.Equal(resp.status, http.StatusCreated)
		is.True(!strings.Contains(string(resp.body), `"answer"`))
	})
}

// TestAnswerInOpenAPI checks that the document a handler serves has its agents' answer schemas, references
// included, so that a run's result with a wrong answer does not match it.
func TestAnswerInOpenAPI(t *testing.T) {
	is := is.New(t)
	e := newEnvOf(t, memory.New(), &triageDesk{})
	resp := e.do(req{method: "GET", path: "/openapi.json"})
	is.Equal(resp.status, http.StatusOK)
	doc, err := openapi3.NewLoader().LoadFromData(resp.body)
	is.NoErr(err)
	is.NoErr(doc.Validate(context.Background()))
	is.True(doc.Components.Schemas["DeskAnswer"] != nil)
	is.True(strings.Contains(string(resp.body), `"#/components/schemas/DeskAnswer/$defs/Reason"`)) // the schema's own reference, rebased
	result := doc.Components.Schemas["RunResult"].Value
	check := func(answer string) error {
		var v any
		body := `{"conversation_id":"c","agent":"Desk","text":"","messages":[],"pending":[],"mode":"default",` +
			`"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0},"answer":` + answer + `}`
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		return result.VisitJSON(v, openapi3.EnableJSONSchema2020())
	}
	is.NoErr(check(verdictJSON))
	for _, wrong := range []string{
		`{"decision":"close","priority":9,"reasons":["x"]}`,       // out of range
		`{"decision":"close","priority":2,"reasons":[""]}`,        // a reason of $defs too short
		`{"decision":"close","priority":2}`,                       // a required field missing
		`{"decision":"close","priority":2,"reasons":["x"],"x":1}`, // a property the type does not have
	} {
		if check(wrong) == nil {
			t.Errorf("the served document accepts the answer %s", wrong)
		}
	}

	// Two agents with answer types: a run's answer is one of theirs, and a name OpenAPI does not allow is spelt
	// with underscores.
	second, err := agent.NewHost(&secondDesk{}, agent.Config{Client: chattest.FuncModel(e.model.respond), Store: e.store,
		Toolsets: []toolset.Source{&tickets.Tickets{Client: e.desk}}})
	is.NoErr(err)
	h, err := agenthttp.New([]*agent.Host{e.host, second}, agenthttp.Options{Authenticate: authenticate, Store: e.store})
	is.NoErr(err)
	doc, err = openapi3.NewLoader().LoadFromData(h.OpenAPI())
	is.NoErr(err)
	is.NoErr(doc.Validate(context.Background()))
	is.True(doc.Components.Schemas["Second_DeskAnswer"] != nil)
	is.Equal(len(doc.Components.Schemas["Answer"].Value.AnyOf), 2)

	// The package's document, and a handler's whose agents answer with text, describe an answer as any object.
	plain := newEnv(t, memory.New())
	resp = plain.do(req{method: "GET", path: "/openapi.json"})
	is.Equal(string(resp.body), string(agenthttp.OpenAPI()))
}

// TestAnswerRefused checks that a run whose answer is never accepted answers 502 answer-refused, saying why, as
// JSON and as the event stream's error event.
func TestAnswerRefused(t *testing.T) {
	is := is.New(t)
	e := newEnvOf(t, memory.New(), &triageDesk{})
	resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "triage nonsense"}})
	is.Equal(resp.status, http.StatusBadGateway)
	p := resp.problem(t)
	is.Equal(p.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemAnswerRefused)
	is.True(strings.Contains(p.Detail, "no Verdict answer the agent accepts, in 3 attempts: ")) // the first and two retries
	is.True(strings.Contains(p.Detail, "priority"))                                             // why the last was refused

	resp = e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "triage nonsense"},
		header: map[string]string{"Accept": "text/event-stream"}})
	is.Equal(resp.status, http.StatusCreated)
	evs := events(t, resp.body)
	last := evs[len(evs)-1]
	is.Equal(last.name, "error")
	var sp agenthttp.Problem
	decodeEvent(t, last, &sp)
	is.Equal(sp.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemAnswerRefused)
	for _, ev := range evs {
		if ev.name == "answer" {
			var a answerEvent
			decodeEvent(t, ev, &a)
			is.True(!a.Final) // partial values of the refused attempts, never an accepted answer
		}
	}
}

// secondDesk is triageDesk under another name, with a space OpenAPI's component names do not allow.
type secondDesk struct{ triageDesk }

func (a *secondDesk) Declare() {
	a.triageDesk.Declare()
	a.WithName("Second Desk")
}

// TestAnswerStreams checks the answer on the two protocol streams: AG-UI's STATE_DELTA adding /answer for each
// value, then the last STATE_SNAPSHOT holding the accepted answer; the AI SDK's data-answer chunks, all under one
// id, the last the accepted answer.
func TestAnswerStreams(t *testing.T) {
	is := is.New(t)
	e := newEnvOf(t, memory.New(), &triageDesk{})

	resp := e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA, body: map[string]any{"threadId": "t-triage",
		"runId": "r1", "messages": []map[string]any{{"id": "u1", "role": "user", "content": "triage 4711"}}}})
	is.Equal(resp.status, http.StatusOK)
	var deltas []answerEvent
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
		switch head.Type {
		case "STATE_DELTA":
			var d struct {
				Delta []struct {
					Op    string      `json:"op"`
					Path  string      `json:"path"`
					Value answerEvent `json:"value"`
				} `json:"delta"`
			}
			decodeEvent(t, ev, &d)
			is.Equal(len(d.Delta), 1)
			is.Equal(d.Delta[0].Op, "add")
			is.Equal(d.Delta[0].Path, "/answer")
			deltas = append(deltas, d.Delta[0].Value)
		case "STATE_SNAPSHOT":
			decodeEvent(t, ev, &snapshot)
		}
	}
	is.True(len(deltas) >= 2)
	is.True(!deltas[0].Final)
	is.True(deltas[len(deltas)-1].Final)
	is.True(sameJSON(t, deltas[len(deltas)-1].Value, []byte(verdictJSON)))
	is.True(snapshot.Snapshot.Answer != nil && snapshot.Snapshot.Answer.Final)
	is.True(sameJSON(t, snapshot.Snapshot.Answer.Value, []byte(verdictJSON)))
	is.Equal(snapshot.Snapshot.Answer.Type, "Verdict")

	resp = e.do(req{method: "POST", path: "/agents/Desk/ui-message-stream", token: tokenA, body: map[string]any{
		"id": "c-triage", "trigger": "submit-message", "messages": []any{userMessage("triage 4711")}}})
	is.Equal(resp.status, http.StatusOK)
	cs, done := uiChunks(t, resp.body)
	is.True(done)
	var ids []string
	var last answerEvent
	for _, c := range cs {
		if c["type"] != "data-answer" {
			continue
		}
		ids = append(ids, c["id"].(string))
		b, _ := json.Marshal(c["data"])
		is.NoErr(json.Unmarshal(b, &last))
	}
	is.True(len(ids) >= 2) // partial values, then the accepted answer
	for _, id := range ids {
		is.Equal(id, ids[0]) // one part, replaced in place
	}
	is.True(last.Final)
	is.True(sameJSON(t, last.Value, []byte(verdictJSON)))
}
