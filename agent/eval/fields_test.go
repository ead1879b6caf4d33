package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
)

// verdict is the answer type of triage.
type verdict struct {
	Decision string   `json:"decision"`
	Priority int      `json:"priority"`
	Reasons  []string `json:"reasons"`
	Route    *route   `json:"route,omitempty"`
}

type route struct {
	Team string `json:"team"`
}

// triage answers with a verdict. Its TypeshiftAnswerType stands for the generated one.
type triage struct{ agent.Agent }

func (a *triage) Declare() {
	a.WithName("Triage")
	agent.Returns[verdict](a)
	a.WithAnswerMode(agent.AnswerNative)
}

func (a *triage) TypeshiftAnswerType() agent.AnswerType {
	return agent.AnswerType{Name: "Verdict", Schema: json.RawMessage(`{"type":"object"}`),
		Decode: func(data []byte) (any, error) {
			var v verdict
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			if v.Decision == "" {
				return nil, errors.New(`missing required property "decision"`)
			}
			return v, nil
		}}
}

// triageHost answers every question with answer, as its typed answer.
func triageHost(t *testing.T, answer string) *agent.Host {
	t.Helper()
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text(answer), nil
	})
	host, err := agent.NewHost(&triage{}, agent.Config{Client: model})
	if err != nil {
		t.Fatal(err)
	}
	return host
}

const triageAnswer = `{"decision":"escalate","priority":1,"reasons":["The printer is on fire.","Floor 3 smells of smoke."],` +
	`"route":{"team":"hardware"}}`

// Field checks of a typed answer: by JSON pointer and by dotted path, each of equals, pattern and schema, and
// the failures that name the field, what it holds and what was wanted.
func TestAnswerFields(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields string
		answer string // "" is triageAnswer
		value  float64
		reason string // a part of the score's reason
	}{
		{name: "equals by pointer and path", value: 1, reason: "4 of 4 checks hold",
			fields: `[{"path":"/decision","equals":"escalate"},{"path":"route.team","equals":"hardware"},` +
				`{"path":"priority","equals":1.0},{"path":"/route","equals":{"team":"hardware"}}]`},
		{name: "pattern and schema", value: 1, reason: "3 of 3 checks hold",
			fields: `[{"path":"reasons.1","pattern":"(?i)smoke"},{"path":"/priority","pattern":"^[1-2]$","schema":{"type":"integer","maximum":2}}]`},
		{name: "the whole answer", value: 1,
			fields: `[{"path":"","schema":{"type":"object","required":["decision","reasons"]}}]`},
		{name: "a wrong value", value: 0.5, reason: `decision is "escalate", want "close"`,
			fields: `[{"path":"decision","equals":"close"},{"path":"route.team","equals":"hardware"}]`},
		{name: "a missing field", value: 0, reason: `answer fields: route.assignee is missing: route holds no "assignee"`,
			fields: `[{"path":"route.assignee","equals":"ann"}]`},
		{name: "past the end of a list", value: 0, reason: `/reasons/5 is missing: reasons is a list of 2, which has no item "5"`,
			fields: `[{"path":"/reasons/5","pattern":"."}]`},
		{name: "inside a scalar", value: 0, reason: `priority.level is missing: priority is 1, which has no field "level"`,
			fields: `[{"path":"priority.level","equals":1}]`},
		{name: "a pattern that does not match", value: 0, reason: `reasons.0 is "The printer is on fire.", which does not match ^Toner`,
			fields: `[{"path":"reasons.0","pattern":"^Toner"}]`},
		{name: "a schema that does not hold", value: 0, reason: `priority is 1, which does not match the schema`,
			fields: `[{"path":"priority","schema":{"minimum":3}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c, err := eval.ParseCase([]byte(`{"text":"Triage ticket 4711.","expect":{"fields":` + tc.fields + `}}`))
			is.NoErr(err)
			answer := tc.answer
			if answer == "" {
				answer = triageAnswer
			}
			res, err := eval.Evaluate(t.Context(), triageHost(t, answer), c, nil)
			is.NoErr(err)
			is.Equal(len(res.Scores), 1)
			s := res.Scores[0]
			is.Equal(s.Name, eval.ScoreFields)
			is.Equal(s.Value, tc.value)
			is.Equal(res.Passed, tc.value == 1)
			if !strings.Contains(s.Reason, tc.reason) {
				t.Errorf("the reason %q does not say %q", s.Reason, tc.reason)
			}
			if tc.value < 1 && !strings.Contains(s.Reason, `"decision":"escalate"`) {
				t.Errorf("the reason %q does not show the answer", s.Reason)
			}
		})
	}
}

// An agent that answers with text has no typed answer: its field checks fail, saying so.
func TestAnswerFieldsWithoutTypedAnswer(t *testing.T) {
	is := is.New(t)
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text(triageAnswer), nil // JSON, but text: the agent declares no answer type
	})
	host, err := agent.NewHost(&plainAgent{}, agent.Config{Client: model})
	is.NoErr(err)
	c, err := eval.ParseCase([]byte(`{"text":"Triage ticket 4711.","expect":{"fields":[{"path":"decision","equals":"escalate"}]}}`))
	is.NoErr(err)
	res, err := eval.Evaluate(t.Context(), host, c, nil)
	is.NoErr(err)
	is.True(!res.Passed)
	is.Equal(res.Scores[0].Value, 0.0)
	is.True(strings.Contains(res.Reason, "answer_fields 0.00 < 1.00: the run has no typed answer"))
}

type plainAgent struct{ agent.Agent }

func (a *plainAgent) Declare() { a.WithName("Plain") }

// A case file's field checks are checked when it is read: each names a path, and at least one check that can run.
func TestParseAnswerFields(t *testing.T) {
	for _, tc := range []struct{ fields, err string }{
		{`[{"path":"decision"}]`, `answer field 1 ("decision"): give "equals", "pattern" or "schema"`},
		{`[{"path":"a..b","equals":1}]`, `an empty key between dots`},
		{`[{"path":"/a~2","equals":1}]`, `is not a JSON pointer`},
		{`[{"path":"a","pattern":"("}]`, `answer field 1 ("a"): answer regex`},
		{`[{"path":"a","schema":{"type":"no-such-type"}}]`, `answer field 1 ("a"): answer schema`},
		{`[{"path":"a","equals":1,"contains":"x"}]`, `unknown field "contains"`},
	} {
		_, err := eval.ParseCase([]byte(`{"text":"x","expect":{"fields":` + tc.fields + `}}`))
		if err == nil || !errors.Is(err, eval.ErrCase) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("fields %s: got %v, want an invalid case saying %q", tc.fields, err, tc.err)
		}
	}
}
