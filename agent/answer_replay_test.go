package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/toolset"
)

// cityLocation is pydantic-ai's CityLocation, the answer of the suite's recorded structured answers.
type cityLocation struct {
	City    string `json:"city"`
	Country string `json:"country"`
}

// cityAgent answers with a cityLocation, in the mode a test sets. Its TypeshiftAnswerType stands for the
// generated one, with the schema the recordings' client sent.
type cityAgent struct {
	agent.Agent
	name   string
	mode   agent.AnswerMode
	schema json.RawMessage
}

func (a *cityAgent) Declare() {
	a.WithName("City")
	a.WithAnswerMode(a.mode)
	agent.Returns[cityLocation](a)
}

func (a *cityAgent) TypeshiftAnswerType() agent.AnswerType {
	return agent.AnswerType{Name: a.name,
		Schema: a.schema,
		Decode: func(data []byte) (any, error) {
			var v cityLocation
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			if v.City == "" || v.Country == "" {
				return nil, errors.New(`missing required property "city" or "country"`)
			}
			return v, nil
		}}
}

// TestAnswerReplayed plays real recorded exchanges with a structured answer (pydantic-ai's) through a run of an
// agent with an answer type, on the providers' SDKs: Chat Completions in native mode (response_format) and in
// tool mode (the answer tool), Claude in tool mode, each calling get_user_country first. Every request the run sends is
// held to the recorded one, and the run's Result.Value is the recorded answer, typed.
func TestAnswerReplayed(t *testing.T) {
	chatClient := func(p *providertest.Playback) chat.Client {
		return openai.New(option.WithBaseURL(p.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0)).WithModel(p.Model)
	}
	claudeClient := func(p *providertest.Playback) chat.Client {
		return anthropic.New(anthropicoption.WithBaseURL(p.URL), anthropicoption.WithAPIKey("test"), anthropicoption.WithMaxRetries(0)).
			WithModel(p.Model).WithMaxTokens(4096)
	}
	city := `{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"]}`
	for _, tc := range []struct {
		wire      providertest.Wire
		recording string
		mode      agent.AnswerMode
		client    func(*providertest.Playback) chat.Client
		schema    string
		ignore    []providertest.Ignore
	}{
		{wire: providertest.Chat, recording: "pydantic_native_output.yaml", mode: agent.AnswerNative, client: chatClient, schema: city,
			ignore: []providertest.Ignore{
				{Path: "tool_choice", Why: "auto is the API's default when tools are offered; a run sends no tool choice of its own"}}},
		{wire: providertest.Chat, recording: "pydantic_tool_output.yaml", mode: agent.AnswerTool, client: chatClient, schema: city,
			ignore: []providertest.Ignore{
				{Path: "tool_choice", Why: "the recording's client forced the answer tool; a run's answer stage offers it without forcing it (docs/typed-answers.md), and the model called it all the same"},
				{Path: "tools[1].function.description", Why: "the answer tool's description is each library's own words"}}},
		{wire: providertest.Anthropic, recording: "pydantic_tool_output.yaml", mode: agent.AnswerTool, client: claudeClient,
			schema: `{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"title":"CityLocation"}`,
			ignore: []providertest.Ignore{
				{Path: "tool_choice", Why: "the recording's client forced the answer tool; a run's answer stage offers it without forcing it (docs/typed-answers.md), and the model called it all the same"},
				{Path: "tools[1].description", Why: "the answer tool's description is each library's own words"},
				{Path: "tools[1].cache_control", Why: "a run marks its stable prefix for Claude's prompt cache (cacheHints); the recording's client did not"},
				{Path: "messages[0].content[0].cache_control", Why: "as tools[1].cache_control: the last message of the first request"},
				{Path: "messages[2].content[0].cache_control", Why: "as tools[1].cache_control: the last message of the second request"}}},
	} {
		t.Run(string(tc.wire)+"/"+string(tc.mode), func(t *testing.T) {
			is := is.New(t)
			replays, err := providertest.RecordedAnswers(tc.wire)
			is.NoErr(err)
			var rp *providertest.Replay
			for i := range replays {
				if replays[i].Recording == tc.recording {
					rp = &replays[i]
				}
			}
			is.True(rp != nil)
			p := providertest.Serve(t, tc.wire, rp.Recording)
			client := tc.client(p)
			country := &toolset.Tool{Name: "get_user_country", Schema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
				Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) { return json.RawMessage(`"Mexico"`), nil }}
			name := "result"
			if rp.Options.ResponseFormat != nil {
				name = rp.Options.ResponseFormat.Name
			}
			h, err := agent.NewHost(&cityAgent{name: name, mode: tc.mode, schema: json.RawMessage(tc.schema)}, agent.Config{Client: client, Tools: []toolset.Source{toolset.List{country}}})
			is.NoErr(err)
			res, err := h.Run(t.Context(), agent.Input(rp.Messages...))
			is.NoErr(err)
			v, err := agent.AnswerOf[cityLocation](res)
			is.NoErr(err)
			is.Equal(v, cityLocation{City: "Mexico City", Country: "Mexico"})
			p.Check(t, append(append([]providertest.Ignore(nil), rp.Ignore...), tc.ignore...)...)
		})
	}
}
