package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/toolset"
)

// The typed answer over each provider's real SDK, against local servers that speak its wire format: each
// provider's default mode, the other mode beside tools, a refused answer sent back, and streamed partial values.

// answerHosts builds a Triage and a Desk host whose runs ask provider's "test-model" through providers.
func answerHosts(t *testing.T, providers *chat.Providers, provider string, mode agent.AnswerMode) (triage, desk *agent.Host) {
	t.Helper()
	var err error
	triage, err = agent.NewHost(&answertest.Triage{Provider: provider, Mode: mode, Retries: 2}, agent.Config{Providers: providers})
	if err != nil {
		t.Fatal(err)
	}
	tickets := &answertest.Tickets{Texts: map[int]string{7: "It works now, thanks."}}
	desk, err = agent.NewHost(&answertest.Desk{Provider: provider, Mode: mode}, agent.Config{Providers: providers, Toolsets: []toolset.Source{tickets}})
	if err != nil {
		t.Fatal(err)
	}
	return triage, desk
}

// TestAnswerOverOpenAI: native structured output in strict mode by default, a property the strict model leaves
// null restored before decoding, a refused answer sent back as a user message, partial values on a stream, and
// the answer tool beside the agent's tools.
func TestAnswerOverOpenAI(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(
		openaitest.Reply{Text: `{"decision":"close","priority":9,"reasons":["Works."],"assignee":null}`},
		openaitest.Reply{Text: `{"decision":"close","priority":4,"reasons":["Works."],"assignee":null}`},
	)
	defer srv.Close()
	var providers chat.Providers
	providers.Register("openai", openai.Factory(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)))
	triage, _ := answerHosts(t, &providers, "openai", agent.AnswerAuto)
	ctx := context.Background()

	res, err := triage.Run(ctx, agent.Text("It works now."))
	is.NoErr(err)
	is.Equal(string(res.Answer), `{"decision":"close","priority":4,"reasons":["Works."]}`) // the null restored away
	v, err := agent.AnswerOf[answertest.Verdict](res)
	is.NoErr(err)
	is.Equal(v.Assignee, nil)
	reqs := srv.Requests()
	is.Equal(len(reqs), 2)
	var body struct {
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	is.NoErr(json.Unmarshal(reqs[0].Body, &body))
	is.Equal(body.ResponseFormat.Type, "json_schema")
	is.Equal(body.ResponseFormat.JSONSchema.Name, "Verdict")
	is.True(body.ResponseFormat.JSONSchema.Strict)
	is.True(strings.Contains(string(body.ResponseFormat.JSONSchema.Schema), `"assignee"`))
	msgs := wireMessages(reqs[1])
	is.Equal(msgs[len(msgs)-1]["role"], "user")
	is.True(strings.Contains(fmt.Sprint(msgs[len(msgs)-1]["content"]), tooUrgentReason))

	// Streamed: the server splits the text into deltas of 8 bytes.
	srv.Push(openaitest.Reply{Text: assigned})
	var partials, finals []string
	var got agent.Result
	for u, err := range triage.RunStream(ctx, agent.Text("The database is down."), agent.ResultInto(&got)) {
		is.NoErr(err)
		if u.Answer != nil && u.Answer.Final {
			finals = append(finals, string(u.Answer.Value))
		} else if u.Answer != nil {
			partials = append(partials, string(u.Answer.Value))
		}
	}
	is.Equal(finals, []string{assigned})
	is.Equal(partials[len(partials)-1], assigned)
	is.True(len(partials) >= 3)
	is.Equal(string(got.Answer), assigned)

	// The answer tool, beside the agent's tool.
	srv2 := openaitest.NewServer(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Name: "get_ticket", Arguments: `{"number":7}`}}},
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_2", Name: agent.AnswerToolName, Arguments: goodVerdict}}},
	)
	defer srv2.Close()
	var p2 chat.Providers
	p2.Register("openai", openai.Factory(option.WithBaseURL(srv2.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)))
	_, desk := answerHosts(t, &p2, "openai", agent.AnswerTool)
	res, err = desk.Run(ctx, agent.Text("Triage ticket 7."))
	is.NoErr(err)
	is.Equal(string(res.Answer), goodVerdict)
	is.True(strings.Contains(string(srv2.Requests()[0].Body), `"name":"final_result"`))
	is.True(!strings.Contains(string(srv2.Requests()[0].Body), `"response_format"`))
}

// anthropicServer answers Messages API calls with the given content blocks in order, as JSON or as a stream,
// and keeps the request bodies.
type anthropicServer struct {
	URL    string
	mu     sync.Mutex
	bodies []string
}

func newAnthropicServer(t *testing.T, contents ...string) *anthropicServer {
	s := &anthropicServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		content := contents[min(len(s.bodies), len(contents))-1]
		n := len(s.bodies)
		s.mu.Unlock()
		stop := "end_turn"
		if strings.Contains(content, `"tool_use"`) {
			stop = "tool_use"
		}
		if !strings.Contains(string(b), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"test-model","content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":12}}`, n, content, stop)
			return
		}
		// A text block streamed in deltas of 8 bytes.
		var block struct{ Text string }
		_ = json.Unmarshal([]byte(content), &block)
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
		event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"test-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":1}}}`, n))
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		for i := 0; i < len(block.Text); i += 8 {
			d, _ := json.Marshal(block.Text[i:min(i+8, len(block.Text))])
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(d)+`}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}`)
		event("message_stop", `{"type":"message_stop"}`)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *anthropicServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func anthropicText(text string) string {
	b, _ := json.Marshal(text)
	return `{"type":"text","text":` + string(b) + `}`
}

// TestAnswerOverAnthropic: output_config.format by default, a validator's refusal sent back, partial values on a
// stream, and the answer tool, refused once, beside the agent's tools.
func TestAnswerOverAnthropic(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	srv := newAnthropicServer(t, anthropicText(unassigned), anthropicText(assigned), anthropicText(goodVerdict))
	var providers chat.Providers
	anthropic.Register(&providers, anthropicoption.WithBaseURL(srv.URL), anthropicoption.WithAPIKey("sk-ant-test"), anthropicoption.WithMaxRetries(0))
	triage, _ := answerHosts(t, &providers, "anthropic", agent.AnswerAuto)
	res, err := triage.Run(ctx, agent.Text("The database is down."))
	is.NoErr(err)
	is.Equal(string(res.Answer), assigned)
	reqs := srv.requests()
	is.Equal(len(reqs), 2)
	is.True(strings.Contains(reqs[0], `"output_config":{"format":{`))
	is.True(strings.Contains(reqs[1], answertest.ErrNoAssignee.Error()))

	var partials []string
	var final string
	for u, err := range triage.RunStream(ctx, agent.Text("It works now.")) {
		is.NoErr(err)
		if u.Answer != nil && u.Answer.Final {
			final = string(u.Answer.Value)
		} else if u.Answer != nil {
			partials = append(partials, string(u.Answer.Value))
		}
	}
	is.Equal(final, goodVerdict)
	is.Equal(partials, []string{`{"decision":"close"}`, `{"decision":"close","priority":4}`, goodVerdict})

	tsrv := newAnthropicServer(t,
		`{"type":"tool_use","id":"toolu_1","name":"get_ticket","input":{"number":7}}`,
		`{"type":"tool_use","id":"toolu_2","name":"final_result","input":`+tooUrgent+`}`,
		`{"type":"tool_use","id":"toolu_3","name":"final_result","input":`+goodVerdict+`}`)
	var p2 chat.Providers
	anthropic.Register(&p2, anthropicoption.WithBaseURL(tsrv.URL), anthropicoption.WithAPIKey("sk-ant-test"), anthropicoption.WithMaxRetries(0))
	_, desk := answerHosts(t, &p2, "anthropic", agent.AnswerTool)
	res, err = desk.Run(ctx, agent.Text("Triage ticket 7."))
	is.NoErr(err)
	is.Equal(string(res.Answer), goodVerdict)
	treqs := tsrv.requests()
	is.Equal(len(treqs), 3)
	is.True(strings.Contains(treqs[0], `"name":"final_result"`))
	is.True(strings.Contains(treqs[2], `"tool_use_id":"toolu_2"`))
	is.True(strings.Contains(treqs[2], "must be at most 5"))
}

func geminiCallOf(id, name, args string) string {
	return `{"candidates":[{"content":{"parts":[{"functionCall":{"id":"` + id + `","name":"` + name + `","args":` + args + `}}],"role":"model"},` +
		`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":10,"totalTokenCount":60},` +
		`"modelVersion":"gemini-2.5-flash","responseId":"r-` + id + `"}`
}

// TestAnswerOverGemini: responseJsonSchema for an agent without tools, the answer tool by default for one with
// tools (Gemini 2.x takes no structured output beside function calling), a refused answer sent back.
func TestAnswerOverGemini(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	srv := newGeminiServer(t, geminiText(tooUrgent), geminiText(goodVerdict))
	var providers chat.Providers
	providers.Register("gemini", func(model string) (chat.Client, error) { return geminiClient(t, srv.URL).WithModel(model), nil })
	triage, _ := answerHosts(t, &providers, "gemini", agent.AnswerAuto)
	res, err := triage.Run(ctx, agent.Text("It works now."))
	is.NoErr(err)
	is.Equal(string(res.Answer), goodVerdict)
	reqs := srv.requests()
	is.Equal(len(reqs), 2)
	is.True(strings.Contains(reqs[0], `"responseJsonSchema"`))
	is.True(strings.Contains(reqs[0], `"responseMimeType":"application/json"`))
	is.True(strings.Contains(reqs[1], "must be at most 5, got 9"))

	tsrv := newGeminiServer(t, geminiCallOf("fc_1", "get_ticket", `{"number":7}`), geminiCallOf("fc_2", "final_result", goodVerdict))
	var p2 chat.Providers
	p2.Register("gemini", func(model string) (chat.Client, error) { return geminiClient(t, tsrv.URL).WithModel(model), nil })
	_, desk := answerHosts(t, &p2, "gemini", agent.AnswerAuto)
	res, err = desk.Run(ctx, agent.Text("Triage ticket 7."))
	is.NoErr(err)
	is.Equal(string(res.Answer), goodVerdict)
	treqs := tsrv.requests()
	is.Equal(len(treqs), 2)
	is.True(strings.Contains(treqs[0], `"name":"final_result"`))
	is.True(!strings.Contains(treqs[0], `"responseJsonSchema"`))
}
