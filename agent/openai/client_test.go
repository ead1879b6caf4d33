package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

const testKey = "sk-test-0123456789abcdef"

// newClient returns a client of srv that does not retry, so that each scripted reply answers one call.
func newClient(srv *openaitest.Server) *openai.Client {
	return openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithMaxRetries(0)).WithModel("gpt-test")
}

func ptr[T any](v T) *T { return &v }

func TestRespondText(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "Ticket 4711 is open.", Usage: &openaitest.Usage{PromptTokens: 21, CompletionTokens: 6}})
	defer srv.Close()

	resp, err := newClient(srv).Respond(context.Background(), []chat.Message{
		{Role: chat.RoleUser, AuthorName: "ada", Parts: []chat.Part{chat.Text{Text: "Is 4711 open?"}}},
	}, &chat.Options{Instructions: "You help with tickets."})
	is.NoErr(err)
	is.Equal(resp.ID, "chatcmpl-test-1")
	is.Equal(resp.Model, "gpt-test")
	is.Equal(resp.FinishReason, chat.FinishStop)
	is.Equal(resp.Usage, chat.Usage{InputTokens: 21, OutputTokens: 6, TotalTokens: 27})
	is.Equal(len(resp.Messages), 1)
	is.Equal(resp.Messages[0].Role, chat.RoleAssistant)
	is.Equal(resp.Messages[0].Text(), "Ticket 4711 is open.")

	reqs := srv.Requests()
	is.Equal(len(reqs), 1)
	is.Equal(reqs[0].Header.Get("Authorization"), "Bearer "+testKey)
	body := reqs[0].Decode()
	is.Equal(body["model"], "gpt-test")
	is.Equal(body["stream"], nil)
	msgs := body["messages"].([]any)
	is.Equal(len(msgs), 2)
	is.Equal(msgs[0], map[string]any{"role": "system", "content": "You help with tickets."})
	is.Equal(msgs[1], map[string]any{"role": "user", "content": "Is 4711 open?", "name": "ada"})
}

func TestRespondToolCalls(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{ToolCalls: []openaitest.ToolCall{
		{ID: "call_a", Name: "get_ticket", Arguments: `{"number":4711}`},
		{ID: "call_b", Name: "get_ticket", Arguments: `{"number":4712}`},
	}})
	defer srv.Close()
	resp, err := newClient(srv).Respond(context.Background(), []chat.Message{chat.UserText("Both?")}, nil)
	is.NoErr(err)
	is.Equal(resp.FinishReason, chat.FinishToolCalls)
	calls := resp.Messages[0].ToolCalls()
	is.Equal(len(calls), 2)
	is.Equal(calls[0], chat.ToolCall{ID: "call_a", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)})
	is.Equal(calls[1].ID, "call_b")
	is.Equal(string(calls[1].Arguments), `{"number":4712}`)
}

func TestRequestBody(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "done"})
	defer srv.Close()

	schema := `{"type":"object","properties":{"number":{"type":"integer","minimum":1}},"required":["number"],"additionalProperties":false}`
	opts := &chat.Options{
		Model:             "gpt-other",
		Temperature:       ptr(0.2),
		TopP:              ptr(0.9),
		MaxTokens:         ptr(300),
		Stop:              []string{"END"},
		Seed:              ptr(int64(42)),
		Tools:             []*toolset.Tool{{Name: "get_ticket", Description: "Reads one ticket.", Schema: json.RawMessage(schema)}, {Name: "list_tickets"}},
		ToolChoice:        "get_ticket",
		ParallelToolCalls: ptr(false),
		ResponseFormat:    &chat.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"note":{"type":"string"}},"required":["ok"]}`), Strict: true},
		Extra:             map[string]json.RawMessage{"user": json.RawMessage(`"tenant-42"`), "metadata": json.RawMessage(`{"k":"v"}`)},
	}
	msgs := []chat.Message{
		chat.UserText("Look at 4711"),
		{Role: chat.RoleAssistant, AuthorName: "support", Parts: []chat.Part{
			chat.Text{Text: "Looking."},
			chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)},
			chat.ToolCall{ID: "call_2", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711}`)},
			chat.UsagePart{Usage: chat.Usage{InputTokens: 1}},
		}},
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ApprovalRequest{ID: "apr_1", Call: chat.ToolCall{ID: "call_2", Name: "close_ticket"}}}},
		{Role: chat.RoleUser, Parts: []chat.Part{chat.ApprovalAnswer{RequestID: "apr_1", Reason: "no"}}},
		{Role: chat.RoleTool, Parts: []chat.Part{
			chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`{"title":"Printer"}`)},
			chat.ToolResult{CallID: "call_2", Error: "The tool call was denied."},
		}},
	}
	_, err := newClient(srv).Respond(context.Background(), msgs, opts)
	is.NoErr(err)

	var body struct {
		Model               string            `json:"model"`
		Temperature         float64           `json:"temperature"`
		TopP                float64           `json:"top_p"`
		MaxCompletionTokens int               `json:"max_completion_tokens"`
		Stop                []string          `json:"stop"`
		Seed                int64             `json:"seed"`
		ParallelToolCalls   *bool             `json:"parallel_tool_calls"`
		ToolChoice          json.RawMessage   `json:"tool_choice"`
		ResponseFormat      json.RawMessage   `json:"response_format"`
		User                string            `json:"user"`
		Metadata            map[string]string `json:"metadata"`
		Tools               []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description *string         `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      *bool           `json:"strict"`
			} `json:"function"`
		} `json:"tools"`
		Messages []map[string]any `json:"messages"`
	}
	is.NoErr(json.Unmarshal(srv.Requests()[0].Body, &body))
	is.Equal(body.Model, "gpt-other") // the options' model wins over the client's default
	is.Equal(body.Temperature, 0.2)
	is.Equal(body.TopP, 0.9)
	is.Equal(body.MaxCompletionTokens, 300)
	is.Equal(body.Stop, []string{"END"})
	is.Equal(body.Seed, int64(42))
	is.Equal(*body.ParallelToolCalls, false)
	is.Equal(string(body.ToolChoice), `{"function":{"name":"get_ticket"},"type":"function"}`)
	// The strict response format in strict mode's subset: every property required, the optional one nullable.
	is.Equal(string(body.ResponseFormat), `{"json_schema":{"name":"answer","strict":true,"schema":{"type":"object","properties":{"ok":{"type":"boolean"},"note":{"type":["string","null"]}},"required":["ok","note"],"additionalProperties":false}},"type":"json_schema"}`)
	is.Equal(body.User, "tenant-42")
	is.Equal(body.Metadata, map[string]string{"k": "v"})

	is.Equal(len(body.Tools), 2)
	is.Equal(body.Tools[0].Type, "function")
	is.Equal(body.Tools[0].Function.Name, "get_ticket")
	is.Equal(*body.Tools[0].Function.Description, "Reads one ticket.")
	is.Equal(body.Tools[0].Function.Strict, nil) // strict stays off unless asked
	var got, want any
	is.NoErr(json.Unmarshal(body.Tools[0].Function.Parameters, &got))
	is.NoErr(json.Unmarshal([]byte(schema), &want))
	is.Equal(got, want)
	is.Equal(body.Tools[1].Function.Description, nil)
	is.Equal(string(body.Tools[1].Function.Parameters), `{"properties":{},"type":"object"}`)

	// user, assistant (text, calls, name), then one tool message per result; approval parts are not sent.
	is.Equal(len(body.Messages), 4)
	is.Equal(body.Messages[0]["role"], "user")
	a := body.Messages[1]
	is.Equal(a["role"], "assistant")
	is.Equal(a["content"], "Looking.")
	is.Equal(a["name"], "support")
	calls := a["tool_calls"].([]any)
	is.Equal(len(calls), 2)
	is.Equal(calls[0], map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_ticket", "arguments": `{"number":4711}`}})
	is.Equal(body.Messages[2], map[string]any{"role": "tool", "tool_call_id": "call_1", "content": `{"title":"Printer"}`})
	is.Equal(body.Messages[3], map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "The tool call was denied."})
}

func TestStrictTools(t *testing.T) {
	is := is.New(t)
	call := openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "c1", Name: "search", Arguments: `{"query":"printer","limit":null}`}}}
	for _, streamed := range []bool{false, true} {
		srv := openaitest.NewServer(call)
		defer srv.Close()
		tools := []*toolset.Tool{
			{Name: "search", Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","default":20}},"required":["query"],"additionalProperties":false}`)},
			{Name: "label", Schema: json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`)},
		}
		c := newClient(srv).WithStrictTools(true)
		msgs := []chat.Message{chat.UserText("hi")}
		opts := &chat.Options{Tools: tools, ParallelToolCalls: ptr(true), ToolChoice: "required"}
		var resp *chat.Response
		var err error
		if streamed {
			resp, err = chat.Collect(c.Stream(context.Background(), msgs, opts))
		} else {
			resp, err = c.Respond(context.Background(), msgs, opts)
		}
		is.NoErr(err)
		// The model's null for the optional limit is removed: the tool sees it absent and applies its default.
		is.Equal(string(resp.Messages[0].ToolCalls()[0].Arguments), `{"query":"printer"}`)

		body := srv.Requests()[0].Decode()
		sent := body["tools"].([]any)
		search := sent[0].(map[string]any)["function"].(map[string]any)
		is.Equal(search["strict"], true)
		params := search["parameters"].(map[string]any)
		is.Equal(params["required"], []any{"query", "limit"})                                                                                     // every property required...
		is.Equal(params["properties"].(map[string]any)["limit"], map[string]any{"type": []any{"integer", "null"}, "description": "Default: 20."}) // ...the optional one nullable
		label := sent[1].(map[string]any)["function"].(map[string]any)
		is.Equal(label["strict"], nil) // a map: strict mode cannot describe it, so the tool goes without
		is.Equal(body["parallel_tool_calls"], true)
		is.Equal(body["tool_choice"], "required")
	}
}

func TestStrictResponseFormatRefused(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	_, err := newClient(srv).Respond(context.Background(), []chat.Message{chat.UserText("hi")}, &chat.Options{ResponseFormat: &chat.ResponseFormat{
		Name: "tags", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}}}`)}})
	var pe *schemaprofile.Error
	is.True(errors.As(err, &pe))
	is.Equal(pe.Tool, "tags")
	is.Equal(pe.Field, "tags")
	is.Equal(len(srv.Requests()), 0) // refused before it was sent
}

func TestParallelToolCallsOnlyWithTools(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	_, err := newClient(srv).Respond(context.Background(), []chat.Message{chat.UserText("hi")}, &chat.Options{ParallelToolCalls: ptr(true)})
	is.NoErr(err)
	_, present := srv.Requests()[0].Decode()["parallel_tool_calls"]
	is.True(!present) // the API refuses the flag without tools
}

func TestNoModel(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	c := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey))
	_, err := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "no model"))
	is.Equal(len(srv.Requests()), 0)
}

func TestBadToolSchema(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	_, err := newClient(srv).Respond(context.Background(), nil, &chat.Options{Tools: []*toolset.Tool{{Name: "t", Schema: json.RawMessage(`[1]`)}}})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `tool "t"`))
}

func TestStreamParallelToolCalls(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{
		Text: "Let me check both tickets — ünïcode too.",
		ToolCalls: []openaitest.ToolCall{
			{ID: "call_a", Name: "get_ticket", Arguments: `{"number":4711,"note":"größer"}`},
			{ID: "call_b", Name: "search_tickets", Arguments: `{"query":"printer on floor 3","limit":5}`},
		},
		Usage: &openaitest.Usage{PromptTokens: 50, CompletionTokens: 30},
	})
	defer srv.Close()

	var updates []chat.Update
	for u, err := range newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("Check 4711 and search printers")}, nil) {
		is.NoErr(err)
		updates = append(updates, u)
	}
	var textDeltas, callUpdates int
	var text strings.Builder
	var calls []chat.ToolCall
	for i, u := range updates {
		is.Equal(u.ResponseID, "chatcmpl-test-1")
		is.Equal(u.Model, "gpt-test")
		for _, p := range u.Parts {
			switch p := p.(type) {
			case chat.Text:
				textDeltas++
				text.WriteString(p.Text)
			case chat.ToolCall:
				calls = append(calls, p)
			case chat.UsagePart:
				is.Equal(i, len(updates)-1) // usage comes last
				is.Equal(p.Usage, chat.Usage{InputTokens: 50, OutputTokens: 30, TotalTokens: 80})
			}
		}
		if len(toolCalls(u)) > 0 {
			callUpdates++
			is.Equal(u.FinishReason, chat.FinishToolCalls) // calls arrive whole, when the model finishes
		}
	}
	is.True(textDeltas > 3) // text streams as deltas
	is.Equal(text.String(), "Let me check both tickets — ünïcode too.")
	is.Equal(callUpdates, 1)
	is.Equal(calls, []chat.ToolCall{
		{ID: "call_a", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711,"note":"größer"}`)},
		{ID: "call_b", Name: "search_tickets", Arguments: json.RawMessage(`{"query":"printer on floor 3","limit":5}`)},
	})

	body := srv.Requests()[0].Decode()
	is.Equal(body["stream"], true)
	is.Equal(body["stream_options"], map[string]any{"include_usage": true})
}

// ToolCalls lists an update's tool calls (a test helper: Update has no such method).
func toolCalls(u chat.Update) []chat.ToolCall {
	return chat.Message{Parts: u.Parts}.ToolCalls()
}

func TestStreamCollect(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "Hello there, how can I help?", Usage: &openaitest.Usage{PromptTokens: 5, CompletionTokens: 7}})
	defer srv.Close()
	resp, err := chat.Collect(newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil))
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "Hello there, how can I help?")
	is.Equal(len(resp.Messages[0].Parts), 1)
	is.Equal(resp.Usage.TotalTokens, int64(12)) // counted once
	is.Equal(resp.FinishReason, chat.FinishStop)
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name       string
		reply      openaitest.Reply
		status     int
		code       string
		retryAfter time.Duration
		temporary  bool
	}{
		{"unauthorized", openaitest.Error(401, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: "+testKey+". You can find your API key at https://platform.openai.com/account/api-keys."),
			401, "invalid_api_key", 0, false},
		{"rate limited", openaitest.RateLimited(7 * time.Second), 429, "rate_limit_exceeded", 7 * time.Second, true},
		{"server error", openaitest.Error(500, "server_error", "", "The server had an error while processing your request."), 500, "", 0, true},
	}
	for _, tt := range tests {
		for _, streamed := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/respond", true: "/stream"}[streamed], func(t *testing.T) {
				is := is.New(t)
				srv := openaitest.NewServer(tt.reply)
				defer srv.Close()
				c := newClient(srv)
				msgs := []chat.Message{chat.UserText("hi")}
				var err error
				if streamed {
					n := 0
					for _, e := range c.Stream(context.Background(), msgs, nil) {
						n++
						err = e
					}
					is.Equal(n, 1) // the error is the only element
				} else {
					_, err = c.Respond(context.Background(), msgs, nil)
				}
				var pe *chat.ProviderError
				is.True(errors.As(err, &pe))
				is.Equal(pe.Provider, "openai")
				is.Equal(pe.StatusCode, tt.status)
				is.Equal(pe.Code, tt.code)
				is.Equal(pe.RetryAfter, tt.retryAfter)
				is.Equal(pe.Temporary(), tt.temporary)
				var sdkErr *openai.Error
				is.True(errors.As(err, &sdkErr)) // the SDK's error stays reachable
				is.Equal(sdkErr.StatusCode, tt.status)
				is.True(!strings.Contains(err.Error(), testKey)) // never the key
				is.True(!strings.Contains(pe.Message, testKey))
				is.True(pe.Message != "")
			})
		}
	}
}

func TestStreamCutHalfway(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "This answer will not arrive whole, it breaks off.", CutAfter: 3})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard: the test must not hang
	defer cancel()
	var texts int
	var last error
	n := 0
	for u, err := range newClient(srv).Stream(ctx, []chat.Message{chat.UserText("hi")}, nil) {
		n++
		if err != nil {
			last = err
			continue
		}
		is.True(last == nil) // nothing follows the error
		texts += len(u.Parts)
	}
	is.True(texts > 0)
	var pe *chat.ProviderError
	is.True(errors.As(last, &pe))
	is.Equal(pe.StatusCode, 0)
	is.True(errors.Is(last, chat.ErrStreamCut))
	is.True(ctx.Err() == nil)
}

func TestStreamEndsWithoutFinish(t *testing.T) {
	is := is.New(t)
	// A server that closes the stream properly, but before the model said it was done.
	srv := openaitest.NewServer(openaitest.Reply{Chunks: []string{
		`{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a"}}]},"finish_reason":null}]}`,
	}})
	defer srv.Close()
	var last error
	for _, err := range newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil) {
		last = err
	}
	is.True(errors.Is(last, io.ErrUnexpectedEOF))
	is.True(errors.Is(last, chat.ErrStreamCut))
}

func TestStreamErrorEvent(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Chunks: []string{
		`{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,
		`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`,
	}})
	defer srv.Close()
	var last error
	for _, err := range newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil) {
		last = err
	}
	var pe *chat.ProviderError
	is.True(errors.As(last, &pe))
	is.True(strings.Contains(pe.Error(), "server had an error"))
}

func TestStreamCancel(t *testing.T) {
	is := is.New(t)
	// The first words arrive at once, the rest would take seconds each.
	srv := openaitest.NewServer(openaitest.Reply{Delay: 5 * time.Second, Chunks: []string{
		`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The first words"},"finish_reason":null}]}`,
		`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" and more"},"finish_reason":null}]}`,
		`[DONE]`,
	}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var start time.Time
	var texts []string
	var last error
	for u, err := range newClient(srv).Stream(ctx, []chat.Message{chat.UserText("hi")}, nil) {
		if err != nil {
			last = err
			continue
		}
		texts = append(texts, chat.Message{Parts: u.Parts}.Text())
		start = time.Now()
		cancel() // mid-stream: one update in, the next one seconds away
	}
	is.Equal(texts, []string{"The first words"})
	is.True(errors.Is(last, context.Canceled))
	is.True(time.Since(start) < 2*time.Second) // ended by the cancellation, not by the server
}

func TestStreamConsumerStops(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "many words that the caller does not wait for", TextDelta: 3})
	defer srv.Close()
	n := 0
	for _, err := range newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil) {
		is.NoErr(err)
		n++
		break
	}
	is.Equal(n, 1)
}

func TestRespondCanceled(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(srv).Respond(ctx, []chat.Message{chat.UserText("hi")}, nil)
	is.True(errors.Is(err, context.Canceled))
}

func TestRegister(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	var p chat.Providers
	openai.Register(&p, option.WithBaseURL(srv.URL), option.WithAPIKey(testKey))
	c, err := p.Client(context.Background(), "openai", "gpt-registry")
	is.NoErr(err)
	resp, err := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "OK")
	is.Equal(srv.Requests()[0].Decode()["model"], "gpt-registry")
}

func TestServerUnknownPath(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	defer srv.Close()
	res, err := http.Get(srv.URL + "/models")
	is.NoErr(err)
	res.Body.Close()
	is.Equal(res.StatusCode, 404)
}

// BenchmarkStreamFirstUpdate measures the time from starting a stream to its first update, for the provider
// client alone over the local wire-format server (the baseline the run pipeline is compared with).
func BenchmarkStreamFirstUpdate(b *testing.B) {
	srv := openaitest.NewServer(openaitest.Reply{Text: "Hello! How can I help you with your tickets today?"})
	defer srv.Close()
	c := newClient(srv)
	msgs := []chat.Message{chat.UserText("hi")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range c.Stream(ctx, msgs, nil) {
			if err != nil {
				b.Fatal(err)
			}
			break
		}
	}
}

func TestStreamRunningUsageCountsOnce(t *testing.T) {
	is := is.New(t)
	// A compatible server that repeats a running total of usage on every chunk.
	srv := openaitest.NewServer(openaitest.Reply{Chunks: []string{
		`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
		`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
		`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`,
		`[DONE]`,
	}})
	defer srv.Close()
	resp, err := chat.Collect(newClient(srv).Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil))
	is.NoErr(err)
	is.Equal(resp.Usage, chat.Usage{InputTokens: 10, OutputTokens: 3, TotalTokens: 13})
	is.Equal(resp.Messages[0].Text(), "Hi there")
}

func TestConnectionRefused(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer()
	url := srv.URL
	srv.Close()
	c := openai.New(option.WithBaseURL(url), option.WithAPIKey(testKey), option.WithMaxRetries(0)).WithModel("m")
	_, err := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
	var pe *chat.ProviderError
	is.True(errors.As(err, &pe))
	is.Equal(pe.StatusCode, 0)
	is.True(!pe.Temporary())
	is.True(!errors.Is(err, chat.ErrStreamCut)) // nothing had begun
	is.True(!strings.Contains(err.Error(), testKey))
}

// TestToolImagesFollowTheToolMessages checks where Chat Completions gets a tool's images: in a user message after
// the last tool message of a row (the API wants every call answered before any other message), one per row,
// each image as a data URL after a line naming its call; a file the API does not take as an image is a line
// naming it.
func TestToolImagesFollowTheToolMessages(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "done"})
	defer srv.Close()
	png := []byte("\x89PNG\r\n\x1a\n")
	msgs := []chat.Message{
		chat.UserText("Draw both."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: "call_1", Name: "chart", Arguments: json.RawMessage(`{}`)},
			chat.ToolCall{ID: "call_2", Name: "chart", Arguments: json.RawMessage(`{}`)},
		}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`"one"`),
			Files: []chat.File{{MediaType: "image/png", Data: png}}}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_2", Result: json.RawMessage(`"two"`),
			Files: []chat.File{{MediaType: "image/bmp", Data: []byte("BM")}, {URL: "https://example.com/c.png"}}}}},
		chat.UserText("And now?"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_3", Name: "chart", Arguments: json.RawMessage(`{}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_3", Result: json.RawMessage(`"three"`),
			Files: []chat.File{{MediaType: "image/png", Data: png}}}}},
	}
	_, err := newClient(srv).Respond(context.Background(), msgs, nil)
	is.NoErr(err)
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	is.NoErr(json.Unmarshal(srv.Requests()[0].Body, &body))
	data := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	want := []string{
		`{"content":"Draw both.","role":"user"}`,
		`{"role":"assistant","tool_calls":[{"id":"call_1","function":{"arguments":"{}","name":"chart"},"type":"function"},{"id":"call_2","function":{"arguments":"{}","name":"chart"},"type":"function"}]}`,
		`{"content":"one","role":"tool","tool_call_id":"call_1"}`,
		`{"content":"two","role":"tool","tool_call_id":"call_2"}`,
		`{"content":[{"text":"Images from the result of tool call call_1:","type":"text"},{"image_url":{"url":"` + data + `"},"type":"image_url"},` +
			`{"text":"Images from the result of tool call call_2:","type":"text"},{"text":"[image image/bmp, 2 bytes, not shown: OpenAI takes PNG, JPEG, WebP and GIF images]","type":"text"},` +
			`{"image_url":{"url":"https://example.com/c.png"},"type":"image_url"}],"role":"user"}`,
		`{"content":"And now?","role":"user"}`,
		`{"role":"assistant","tool_calls":[{"id":"call_3","function":{"arguments":"{}","name":"chart"},"type":"function"}]}`,
		`{"content":"three","role":"tool","tool_call_id":"call_3"}`,
		`{"content":[{"text":"Images from the result of tool call call_3:","type":"text"},{"image_url":{"url":"` + data + `"},"type":"image_url"}],"role":"user"}`,
	}
	is.Equal(len(body.Messages), len(want))
	sorted := func(raw string) string { // keys in order, whatever order the SDK writes them in
		var v any
		is.NoErr(json.Unmarshal([]byte(raw), &v))
		b, _ := json.Marshal(v)
		return string(b)
	}
	for i := range want {
		is.Equal(sorted(string(body.Messages[i])), sorted(want[i]))
	}
}

// TestToolImagesOff checks a client made WithToolImages(false), for a model that takes no images: each image is a
// line in its tool message, and no image is sent, on Chat Completions and on the Responses API.
func TestToolImagesOff(t *testing.T) {
	is := is.New(t)
	msgs := []chat.Message{
		chat.UserText("Draw it."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_1", Name: "chart", Arguments: json.RawMessage(`{}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`"one"`),
			Files: []chat.File{{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")}}}}},
	}
	const want = "one\n[image image/png, 8 bytes, not shown: this model is given no images]"

	srv := openaitest.NewServer(openaitest.Reply{Text: "done"})
	defer srv.Close()
	_, err := newClient(srv).WithToolImages(false).Respond(context.Background(), msgs, nil)
	is.NoErr(err)
	var chatBody struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	is.NoErr(json.Unmarshal(srv.Requests()[0].Body, &chatBody))
	is.Equal(len(chatBody.Messages), 3) // no user message with images
	var content string
	is.NoErr(json.Unmarshal(chatBody.Messages[2].Content, &content))
	is.Equal(content, want)

	var body []byte
	rsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		http.Error(w, `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":null}}`, http.StatusBadRequest)
	}))
	defer rsrv.Close()
	rc := openai.NewResponses(option.WithBaseURL(rsrv.URL), option.WithAPIKey(testKey)).WithModel("o3-mini").WithToolImages(false)
	_, err = rc.Respond(context.Background(), msgs, nil)
	is.True(err != nil) // the server refuses; only the request matters
	var req struct {
		Input []map[string]any `json:"input"`
	}
	is.NoErr(json.Unmarshal(body, &req))
	is.Equal(req.Input[2]["type"], "function_call_output")
	is.Equal(req.Input[2]["output"], want)
}
