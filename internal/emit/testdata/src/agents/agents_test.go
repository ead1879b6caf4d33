package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents/helpdesk"
	"github.com/typeshift-go/typeshift/toolset"
)

// seen records what the model was offered and asked with.
type seen struct {
	tools []string
	opts  *chat.Options
	msgs  []chat.Message
}

// recorder is a model that records each request and answers with the responses in order, then with text.
func recorder(log *[]seen, responses ...func([]chat.Message) *chat.Response) chattest.FuncModel {
	return func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		var names []string
		for _, t := range opts.Tools {
			names = append(names, t.Name)
		}
		*log = append(*log, seen{tools: names, opts: opts, msgs: slices.Clone(msgs)})
		if i := len(*log) - 1; i < len(responses) {
			return responses[i](msgs), nil
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "done"}}}},
			FinishReason: chat.FinishStop}, nil
	}
}

// calls answers with tool calls.
func calls(cs ...chat.ToolCall) func([]chat.Message) *chat.Response {
	return func([]chat.Message) *chat.Response {
		parts := make([]chat.Part, len(cs))
		for i, c := range cs {
			parts[i] = c
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}}, FinishReason: chat.FinishToolCalls}
	}
}

func toolsets() []toolset.Source { return []toolset.Source{&agents.Desk{}, &helpdesk.Notes{}} }

// results returns the tool results of msgs by call id.
func results(msgs []chat.Message) map[string]chat.ToolResult {
	out := map[string]chat.ToolResult{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}

func TestDeclaration(t *testing.T) {
	is := is.New(t)
	d := (&agents.Support{}).TypeshiftDeclaration()
	is.Equal(d.Name, "Support")
	is.Equal(len(d.Uses), 2)
	is.Equal(d.Uses[0].Exclude, []string{"close"})
	is.Equal(d.Uses[1].Include, []string{"add_ticket_note", "list_notes"})
	is.Equal(d.Configurable, []string{"provider", "model", "temperature"})
	is.Equal(d.SettingsKind, agents.SupportSettingsKind)
	is.Equal(d.SettingsVersion, 1)

	tr := (&agents.Triage{}).TypeshiftDeclaration()
	is.Equal(tr.Name, "triage")
	is.Equal(tr.Uses[0].Include, []string{"get", "close"})
	is.Equal(tr.Configurable, []string{"stop"})
}

func TestPicksAreHonoured(t *testing.T) {
	is := is.New(t)
	var log []seen
	m := recorder(&log, calls(chat.ToolCall{ID: "1", Name: "close", Arguments: json.RawMessage(`{"number":1}`)},
		chat.ToolCall{ID: "2", Name: "delete_notes", Arguments: json.RawMessage(`{"ticket":1}`)}))
	h, err := agent.NewHost(&agents.Support{}, agent.Config{Client: m, Toolsets: toolsets()})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("close ticket 1"))
	is.NoErr(err)
	is.Equal(log[0].tools, []string{"search", "get", "add_ticket_note", "list_notes"}) // close and delete_notes not offered
	is.Equal(len(res.Pending), 0)                                                      // an excluded tool is never asked for
	got := results(res.New)
	is.True(strings.Contains(got["1"].Error, "not available"))
	is.True(strings.Contains(got["2"].Error, "not available"))
	is.Equal(res.Text(), "done")
}

func TestIncludeOffersOnlyThePicks(t *testing.T) {
	is := is.New(t)
	var log []seen
	h, err := agent.NewHost(&agents.Triage{}, agent.Config{Client: recorder(&log), Toolsets: []toolset.Source{&agents.Desk{}}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("sort"))
	is.NoErr(err)
	is.Equal(log[0].tools, []string{"get", "close"})
}

func TestTestModelRunsThePickedTools(t *testing.T) {
	is := is.New(t)
	h, err := agent.NewHost(&agents.Support{}, agent.Config{
		Client:   chattest.NewTestModel(&chattest.TestModelOptions{Seed: 3}),
		Toolsets: toolsets(),
	})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("help"))
	is.NoErr(err)
	text := res.Text()
	for _, name := range []string{"search", "get", "add_ticket_note", "list_notes"} {
		is.True(strings.Contains(text, name)) // the test model reports every offered tool's result
	}
	is.True(!strings.Contains(text, "close"))
}

func ptr[T any](v T) *T { return &v }

func TestSettingsJSON(t *testing.T) {
	is := is.New(t)
	s := agents.SupportSettings{
		Model:           ptr("model-2"),
		Temperature:     ptr(0.5),
		MaxIterations:   ptr(3),
		SearchOverrides: json.RawMessage(`{"limit":5}`),
		Tools:           map[string]json.RawMessage{"list_notes": json.RawMessage(`{}`)},
	}
	b, err := s.MarshalJSON()
	is.NoErr(err)
	id := "github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents.Desk.search"
	is.Equal(string(b), `{"model":"model-2","temperature":0.5,"max_iterations":3,"tools":{"`+id+`":{"limit":5},"list_notes":{}}}`)
	std, err := json.Marshal(s) // encoding/json goes through MarshalJSON too
	is.NoErr(err)
	is.Equal(string(std), string(b))

	var back agents.SupportSettings
	is.NoErr(json.Unmarshal(b, &back))
	is.Equal(*back.Model, "model-2")
	is.Equal(*back.Temperature, 0.5)
	is.Equal(*back.MaxIterations, 3)
	is.Equal(string(back.SearchOverrides), `{"limit":5}`)
	is.Equal(string(back.Tools["list_notes"]), `{}`)
	is.True(back.Provider == nil)

	empty, err := agents.SupportSettings{}.MarshalJSON()
	is.NoErr(err)
	is.Equal(string(empty), `{}`)

	doc, err := s.Document("tenant-1")
	is.NoErr(err)
	is.Equal(doc.Kind, agents.SupportSettingsKind)
	is.Equal(doc.SchemaVersion, agents.SupportSettingsVersion)
	is.Equal(doc.SettingsID, "tenant-1")
	is.Equal(string(doc.Data), string(b))
}

func TestSettingsRefuseWhatTheAgentRefuses(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"fixed option", `{"top_p":0.5}`, "top_p"},
		{"unknown key", `{"colour":"red"}`, "colour"},
		{"wrong type", `{"max_iterations":"many"}`, "max_iterations"},
		{"not an object", `[1]`, "object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var s agents.SupportSettings
			err := s.UnmarshalJSON([]byte(tt.doc))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want))
		})
	}
	is := is.New(t)
	var tr agents.TriageSettings
	is.NoErr(tr.UnmarshalJSON([]byte(`{"stop":["END","STOP"],"concurrent_tools":true}`)))
	is.Equal(tr.Stop, []string{"END", "STOP"})
	is.Equal(*tr.ConcurrentTools, true)
}

func TestTypedSettingsApplyToARun(t *testing.T) {
	is := is.New(t)
	var log []seen
	m := recorder(&log, calls(chat.ToolCall{ID: "1", Name: "search", Arguments: json.RawMessage(`{"query":"printer"}`)}))
	h, err := agent.NewHost(&agents.Support{}, agent.Config{Client: m, Toolsets: toolsets()})
	is.NoErr(err)
	doc, err := agents.SupportSettings{
		Model:           ptr("model-2"),
		Temperature:     ptr(0.7),
		SearchOverrides: json.RawMessage(`{"limit":5}`),
	}.MarshalJSON()
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("find"), agent.RunSettings(doc))
	is.NoErr(err)
	is.Equal(log[0].opts.Model, "model-2")
	is.Equal(*log[0].opts.Temperature, 0.7)
	is.Equal(string(results(res.New)["1"].Result), `["printer (limit 5)"]`)
}

func TestOwnToolsAreOfferedAndCalled(t *testing.T) {
	is := is.New(t)
	var log []seen
	m := recorder(&log, calls(chat.ToolCall{ID: "1", Name: "escalate", Arguments: json.RawMessage(`{"number":4,"reason":"angry"}`)}))
	a := &agents.Frontline{}
	h, err := agent.NewHost(a, agent.Config{Client: m, Toolsets: toolsets()})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("help"))
	is.NoErr(err)
	is.Equal(log[0].tools, []string{"get", "escalate", "desk_status"}) // the uses' tools, then the agent's own
	is.Equal(a.Escalated, []string{"angry"})                           // called on the agent, arguments decoded
	is.Equal(string(results(res.New)["1"].Result), `"ticket 4 escalated"`)
	tools, err := a.TypeshiftTools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(tools[0].ID, agents.FrontlineEscalateID)
	is.Equal(tools[1].ID, "github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents.Frontline.desk_status")
	is.True(tools[1].ReadOnly)
}

func TestOwnToolConflictsWithAToolsetTool(t *testing.T) {
	is := is.New(t)
	other := toolset.List{{Name: "escalate", Description: "d", Schema: json.RawMessage(`{"type":"object"}`)}}
	_, err := agent.NewHost(&agents.Frontline{}, agent.Config{Client: recorder(new([]seen)), Toolsets: toolsets(), Tools: []toolset.Source{other}})
	var conflict *toolset.ConflictError
	is.True(errors.As(err, &conflict))
	is.True(strings.Contains(err.Error(), "Frontline (own tools)")) // the own tools are a named source
}
