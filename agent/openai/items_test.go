package openai_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// reasoningAnswer is a Responses API answer of a reasoning model: a reasoning item with a summary of three parts
// and encrypted content, then a function call whose item id differs from its call id.
const reasoningAnswer = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5-mini","output":[` +
	`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**One**"},{"type":"summary_text","text":"**Two**"},{"type":"summary_text","text":"**Three**"}],"encrypted_content":"gAAAA-enc"},` +
	`{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"number\":4711}","call_id":"call_1","name":"get_ticket"}],` +
	`"usage":{"input_tokens":10,"output_tokens":20,"total_tokens":30,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":12}}}`

// reasoningStream is reasoningAnswer as a stream.
const reasoningStream = `event: response.created
data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-5-mini","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**One**"}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"**Tw"}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"o**"}

event: response.reasoning_summary_part.added
data: {"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":2,"part":{"type":"summary_text","text":""}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":2,"delta":"**Three**"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**One**"},{"type":"summary_text","text":"**Two**"},{"type":"summary_text","text":"**Three**"}],"encrypted_content":"gAAAA-enc"}}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"number\":4711}","call_id":"call_1","name":"get_ticket"}}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5-mini","output":[],"usage":{"input_tokens":10,"output_tokens":20,"total_tokens":30}}}

`

// responsesServer answers each request with the next of answers and keeps the bodies.
func responsesServer(t *testing.T, answers ...string) (*openai.ResponsesClient, func() []string) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		a := answers[min(len(bodies), len(answers))-1]
		mu.Unlock()
		if strings.HasPrefix(a, "event:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = io.WriteString(w, a)
	}))
	t.Cleanup(srv.Close)
	c := openai.NewResponses(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey)).WithModel("gpt-5-mini")
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

const textAnswer = `{"id":"resp_2","object":"response","created_at":1,"status":"completed","model":"gpt-5-mini","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Open.","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`

// TestFunctionCallItemID checks that a function call's item id ("fc_...") travels with the call, whole or
// streamed, and goes back in the follow-up's function_call item, right after its reasoning item, whose summary
// parts go back as they came.
func TestFunctionCallItemID(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			first := reasoningAnswer
			if stream {
				first = reasoningStream
			}
			c, bodies := responsesServer(t, first, textAnswer)
			msgs := []chat.Message{chat.UserText("Is ticket 4711 open?")}
			opts := &chat.Options{Tools: providertest.Tools()}
			var resp *chat.Response
			var err error
			if stream {
				resp, err = chat.Collect(c.Stream(t.Context(), msgs, opts))
			} else {
				resp, err = c.Respond(t.Context(), msgs, opts)
			}
			is.NoErr(err)
			answer := resp.Messages[0]
			is.Equal(answer.Parts, []chat.Part{
				chat.Reasoning{Provider: openai.ProviderName, ID: "rs_1", Text: "**One**"},
				chat.Reasoning{Provider: openai.ProviderName, ID: "rs_1", Text: "**Two**", Index: 1},
				chat.Reasoning{Provider: openai.ProviderName, ID: "rs_1", Text: "**Three**", Index: 2, Encrypted: "gAAAA-enc"},
				chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`), Provider: openai.ProviderName, ItemID: "fc_1"},
			})

			// Stored and loaded, as a run keeps it between requests.
			stored, err := chat.MarshalMessages([]chat.Message{answer})
			is.NoErr(err)
			loaded, err := chat.UnmarshalMessages(stored)
			is.NoErr(err)
			msgs = append(msgs, loaded[0], chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
				chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`{"open":true}`)}}})
			_, err = c.Respond(t.Context(), msgs, opts)
			is.NoErr(err)
			var req struct {
				Input []map[string]any `json:"input"`
			}
			is.NoErr(json.Unmarshal([]byte(bodies()[1]), &req))
			is.Equal(len(req.Input), 4) // the question, the reasoning, the call, its output
			is.Equal(req.Input[1]["type"], "reasoning")
			is.Equal(req.Input[1]["id"], "rs_1")
			is.Equal(req.Input[1]["encrypted_content"], "gAAAA-enc")
			is.Equal(req.Input[1]["summary"], []any{
				map[string]any{"type": "summary_text", "text": "**One**"},
				map[string]any{"type": "summary_text", "text": "**Two**"},
				map[string]any{"type": "summary_text", "text": "**Three**"}})
			is.Equal(req.Input[2]["type"], "function_call")
			is.Equal(req.Input[2]["id"], "fc_1")
			is.Equal(req.Input[2]["call_id"], "call_1")
			is.Equal(req.Input[3]["type"], "function_call_output")
		})
	}
}

// TestResponsesReasoningOption checks the request's reasoning options over the client's effort.
func TestResponsesReasoningOption(t *testing.T) {
	no := false
	tests := []struct {
		name   string
		effort string
		ro     *chat.ReasoningOptions
		want   string
	}{
		{"the client's default", "low", nil, `{"effort":"low","summary":"auto"}`},
		{"an effort and a summary", "low", &chat.ReasoningOptions{Effort: chat.ReasoningHigh, Summary: chat.SummaryDetailed}, `{"effort":"high","summary":"detailed"}`},
		{"a budget", "", &chat.ReasoningOptions{BudgetTokens: 3000}, `{"effort":"low"}`},
		{"no thoughts", "medium", &chat.ReasoningOptions{IncludeThoughts: &no}, `{"effort":"medium"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, bodies := responsesServer(t, textAnswer)
			_, err := c.WithReasoningEffort(tt.effort).Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Reasoning: tt.ro})
			is.NoErr(err)
			var req struct {
				Reasoning json.RawMessage `json:"reasoning"`
			}
			is.NoErr(json.Unmarshal([]byte(bodies()[0]), &req))
			var got, want any
			is.NoErr(json.Unmarshal(req.Reasoning, &got))
			is.NoErr(json.Unmarshal([]byte(tt.want), &want))
			is.Equal(got, want)
		})
	}
}

// TestResponsesExtra checks that Options.Extra merges into the objects the request sets, and that a field the
// library set is an error naming it, before the request.
func TestResponsesExtra(t *testing.T) {
	is := is.New(t)
	c, bodies := responsesServer(t, textAnswer)
	_, err := c.WithReasoningEffort("low").Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{
		Extra: map[string]json.RawMessage{"reasoning": json.RawMessage(`{"context":"all_turns"}`), "service_tier": json.RawMessage(`"flex"`)}})
	is.NoErr(err)
	var req struct {
		Reasoning   map[string]any `json:"reasoning"`
		ServiceTier string         `json:"service_tier"`
	}
	is.NoErr(json.Unmarshal([]byte(bodies()[0]), &req))
	is.Equal(req.Reasoning, map[string]any{"effort": "low", "summary": "auto", "context": "all_turns"})
	is.Equal(req.ServiceTier, "flex")

	_, err = c.WithReasoningEffort("low").Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{
		Extra: map[string]json.RawMessage{"reasoning": json.RawMessage(`{"effort":"high"}`)}})
	var ce *chat.ExtraConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Field, "reasoning.effort")
	is.Equal(len(bodies()), 1) // not sent
}

// TestChatCompletionsOptions checks the reasoning option and Extra's merge on Chat Completions.
func TestChatCompletionsOptions(t *testing.T) {
	is := is.New(t)
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"o4-mini","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey)).WithModel("o4-mini")
	temp := 0.25
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Temperature: &temp,
		Reasoning: &chat.ReasoningOptions{Effort: chat.ReasoningMinimal}, Extra: map[string]json.RawMessage{"user": json.RawMessage(`"u-1"`)}})
	is.NoErr(err)
	var req map[string]any
	is.NoErr(json.Unmarshal(body, &req))
	is.Equal(req["reasoning_effort"], "minimal")
	is.Equal(req["user"], "u-1")
	is.Equal(req["temperature"], 0.25)
	body = nil
	_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Temperature: &temp,
		Extra: map[string]json.RawMessage{"temperature": json.RawMessage(`1`)}})
	var ce *chat.ExtraConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Field, "temperature")
	is.Equal(body, []byte(nil))
}

// TestStoredBeforeItemIDs checks a history stored before calls kept their item ids: its reasoning item, which
// the API refuses before a function_call without its id, is left out, and the call goes alone.
func TestStoredBeforeItemIDs(t *testing.T) {
	is := is.New(t)
	c, bodies := responsesServer(t, textAnswer)
	old, err := chat.UnmarshalMessages([]byte(`[{"role":"user","parts":[{"type":"text","text":"Is ticket 4711 open?"}]},` +
		`{"role":"assistant","parts":[{"type":"reasoning","text":"**One**","id":"rs_1","provider":"openai","encrypted":"gAAAA"},` +
		`{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}}]},` +
		`{"role":"tool","parts":[{"type":"tool_result","call_id":"call_1","result":{"open":true}}]}]`))
	is.NoErr(err)
	_, err = c.Respond(t.Context(), old, &chat.Options{Tools: providertest.Tools()})
	is.NoErr(err)
	var req struct {
		Input []map[string]any `json:"input"`
	}
	is.NoErr(json.Unmarshal([]byte(bodies()[0]), &req))
	var types []string
	for _, it := range req.Input {
		kind, _ := it["type"].(string)
		if kind == "" {
			kind, _ = it["role"].(string) // an easy input message
		}
		types = append(types, kind)
	}
	is.Equal(types, []string{"user", "function_call", "function_call_output"})
}
