package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// A case made from a conversation whose agent answers with a type checks the answer's fields, each top-level
// one equal to its stored value, not the answer's words; saved and loaded again it passes on a host that
// answers the same and fails on one whose answer differs in a field.
func TestFromConversationTypedAnswer(t *testing.T) {
	is := is.New(t)
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text(triageAnswer), nil
	})
	host, err := agent.NewHost(&triage{}, agent.Config{Client: model, Store: memory.New()})
	is.NoErr(err)
	_, err = host.Run(t.Context(), agent.Text("Triage ticket 4711."), agent.SettingsID("tenant-42"), agent.Conversation("c-typed"))
	is.NoErr(err)

	made, err := eval.FromConversation(t.Context(), host, "tenant-42", "c-typed")
	is.NoErr(err)
	is.Equal(made.AnsweredBy(), "Triage")
	is.Equal(made.Expect.Answer, nil) // no reference: the words of a typed answer are no check
	is.Equal(made.Thresholds, nil)
	var paths []string
	for _, f := range made.Expect.Fields {
		paths = append(paths, f.Path)
	}
	is.Equal(paths, []string{"/decision", "/priority", "/reasons", "/route"})
	is.Equal(string(made.Expect.Fields[3].Equals), `{"team":"hardware"}`)

	data, err := made.MarshalIndent()
	is.NoErr(err)
	again, err := eval.ParseCase(data)
	is.NoErr(err)
	res, err := eval.Evaluate(t.Context(), triageHost(t, triageAnswer), again, nil)
	is.NoErr(err)
	is.True(res.Passed)
	other := `{"decision":"escalate","priority":2,"reasons":["The printer is on fire.","Floor 3 smells of smoke."],"route":{"team":"hardware"}}`
	res, err = eval.Evaluate(t.Context(), triageHost(t, other), again, nil)
	is.NoErr(err)
	is.True(!res.Passed) // the priority differs
}

// ExpectAnswerFields checks a whole answer that is no object, escapes keys as JSON pointers, and refuses a case
// without a reference or with one that is not JSON, changing nothing.
func TestExpectAnswerFields(t *testing.T) {
	for _, tc := range []struct {
		name, reference string
		paths           []string
		err             bool
	}{
		{name: "object", reference: `{"a/b":1,"c~d":[2],"e":{"f":null}}`, paths: []string{"/a~1b", "/c~0d", "/e"}},
		{name: "empty object", reference: `{}`, paths: []string{""}},
		{name: "list", reference: `[1,2]`, paths: []string{""}},
		{name: "text", reference: `The printer is fixed.`, err: true},
		{name: "two values", reference: `{"a":1} {"b":2}`, err: true},
		{name: "no reference", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			msgs := []chat.Message{{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "Triage."}}},
				{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: tc.reference}}}}
			if tc.reference == "" {
				msgs[1].Parts = []chat.Part{chat.ToolCall{ID: "c1", Name: "x", Arguments: json.RawMessage(`{}`)}}
			}
			c, err := eval.FromMessages(msgs)
			is.NoErr(err)
			err = c.ExpectAnswerFields()
			if tc.err {
				is.True(errors.Is(err, eval.ErrCase))
				is.Equal(c.Expect.Fields, nil)
				return
			}
			is.NoErr(err)
			var paths []string
			for _, f := range c.Expect.Fields {
				paths = append(paths, f.Path)
			}
			is.Equal(paths, tc.paths)
			data, err := c.MarshalIndent()
			is.NoErr(err)
			_, err = eval.ParseCase(data)
			is.NoErr(err)
		})
	}
}
