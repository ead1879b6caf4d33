package providertest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"
	openaioption "github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// TestPlayback drives a client by hand against a played recording, as a test of a run's answer stage does: the
// answer tool's call comes back whole, Check finds nothing to report, and it reports a request the recording's
// client did not send and a conversation that stops short.
func TestPlayback(t *testing.T) {
	replays, err := providertest.RecordedAnswers(providertest.Chat)
	if err != nil {
		t.Fatal(err)
	}
	var rp providertest.Replay
	for _, r := range replays {
		if r.Recording == "pydantic_tool_output.yaml" {
			rp = r
		}
	}
	is := is.New(t)
	is.Equal(rp.AnswerTool, providertest.AnswerTool)
	run := func(tb testing.TB, p *providertest.Playback, prompt string, rounds int) *chat.Response {
		c := openai.New(openaioption.WithBaseURL(p.URL+"/v1/"), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0)).WithModel(p.Model)
		msgs := []chat.Message{chat.UserText(prompt)}
		var resp *chat.Response
		for range rounds {
			resp, err = c.Respond(t.Context(), msgs, rp.Options)
			is.NoErr(err)
			msgs = append(msgs, resp.Messages...)
			tool := chat.Message{Role: chat.RoleTool}
			for _, call := range resp.Messages[0].ToolCalls() {
				tool.Parts = append(tool.Parts, chat.ToolResult{CallID: call.ID, Result: json.RawMessage(`"Mexico"`)})
			}
			msgs = append(msgs, tool)
		}
		return resp
	}

	p := providertest.Serve(t, providertest.Chat, rp.Recording)
	resp := run(t, p, rp.Messages[0].Text(), 2)
	answer, where := providertest.StructuredAnswer(resp, rp.AnswerTool)
	is.Equal(where, "the arguments of the call of final_result")
	is.Equal(string(answer), `{"city": "Mexico City", "country": "Mexico"}`)
	is.Equal(len(p.Requests()), 2)
	f := &failures{TB: t}
	p.Check(f, rp.Ignore...)
	is.Equal(f.got, nil)

	p = providertest.Serve(t, providertest.Chat, rp.Recording)
	run(t, p, "What is the smallest city?", 1)
	f = &failures{TB: t}
	p.Check(f, rp.Ignore...)
	got := strings.Join(f.got, "\n")
	is.True(strings.Contains(got, `messages[0].content[0].text: recorded "What is the largest city in the user country?", sent "What is the smallest city?"`))
	is.True(strings.Contains(got, "the client sent 1 requests; the recording has 2 interactions"))
}

// TestRecordedAnswersCoverModes checks that every wire holds structured answers recorded in native mode and in tool
// mode, each with its answer.
func TestRecordedAnswersCoverModes(t *testing.T) {
	for _, w := range []providertest.Wire{providertest.Anthropic, providertest.Gemini, providertest.Responses, providertest.Chat} {
		replays, err := providertest.RecordedAnswers(w)
		if err != nil {
			t.Fatal(err)
		}
		modes := map[string]int{}
		for _, rp := range replays {
			switch {
			case rp.AnswerTool != "" && rp.Options.ToolChoice != "" && rp.Options.ToolChoice != "auto":
				modes["tool"]++
			case rp.AnswerTool == "" && rp.Options.ResponseFormat != nil:
				modes["native"]++
			default:
				t.Errorf("%s: %s asks for its answer neither natively nor by a forced tool", w, rp.Recording)
			}
		}
		if modes["native"] == 0 || modes["tool"] == 0 {
			t.Errorf("%s: structured answers by mode %v; want native and tool mode", w, modes)
		}
	}
}
