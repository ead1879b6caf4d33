package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

// recorder answers every request with the next of its answers (the last one again when they run out) and keeps
// the requests' paths and bodies.
type recorder struct {
	mu      sync.Mutex
	answers []answer
	paths   []string
	bodies  []string
}

type answer struct {
	status int
	header http.Header
	body   string
}

func serve(t testing.TB, answers ...answer) (*recorder, string) {
	r := &recorder{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.RequestURI())
		r.bodies = append(r.bodies, string(b))
		a := r.answers[min(len(r.bodies), len(r.answers))-1]
		r.mu.Unlock()
		for k, v := range a.header {
			w.Header()[k] = v
		}
		if strings.HasPrefix(a.body, "data:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *recorder) requests() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.paths...), append([]string(nil), r.bodies...)
}

const okBody = `{"candidates":[{"content":{"parts":[{"text":"OK"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`

const serverError = `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`

func TestRequest(t *testing.T) {
	is := is.New(t)
	rec, url := serve(t, answer{status: 200, body: okBody})
	temp, seed, maxTokens := 0.25, int64(7), 300
	opts := &chat.Options{
		Model: "gemini-2.5-pro", Temperature: &temp, Seed: &seed, MaxTokens: &maxTokens, Stop: []string{"END"},
		Tools: []*toolset.Tool{{Name: "find", Description: "Finds tickets.", Schema: json.RawMessage(
			`{"type":"object","properties":{"code":{"type":"string","pattern":"^T-[0-9]+$"},"limit":{"type":"integer","default":20}},"required":["code"]}`)}},
		ToolChoice: "find",
		Extra:      map[string]json.RawMessage{"labels": json.RawMessage(`{"tenant":"t-42"}`)},
	}
	msgs := []chat.Message{
		chat.SystemText("Be brief."),
		chat.UserText("Find T-1"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "gemini_call_0a1b", Name: "find", Arguments: json.RawMessage(`{"code":"T-1"}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "gemini_call_0a1b", Result: json.RawMessage(`[{"n":1}]`)}}},
	}
	resp, err := newClient(t, url).Respond(context.Background(), msgs, opts)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "OK")
	is.Equal(resp.Usage, chat.Usage{InputTokens: 3, OutputTokens: 1, TotalTokens: 4})
	paths, bodies := rec.requests()
	is.Equal(paths[0], "/v1beta/models/gemini-2.5-pro:generateContent") // the options' model wins
	var body struct {
		Contents          []map[string]any `json:"contents"`
		SystemInstruction map[string]any   `json:"systemInstruction"`
		GenerationConfig  map[string]any   `json:"generationConfig"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		ToolConfig map[string]any    `json:"toolConfig"`
		Labels     map[string]string `json:"labels"`
	}
	is.NoErr(json.Unmarshal([]byte(bodies[0]), &body))
	is.Equal(body.SystemInstruction["parts"], []any{map[string]any{"text": "Be brief."}})
	is.Equal(body.GenerationConfig["temperature"], 0.25)
	is.Equal(body.GenerationConfig["seed"], 7.0)
	is.Equal(body.GenerationConfig["maxOutputTokens"], 300.0)
	is.Equal(body.GenerationConfig["stopSequences"], []any{"END"})
	// The schema in Gemini's subset: the pattern and the default are said in words; optional stays optional.
	var sent, want any
	is.NoErr(json.Unmarshal(body.Tools[0].FunctionDeclarations[0].ParametersJSONSchema, &sent))
	is.NoErr(json.Unmarshal([]byte(`{"type":"object","properties":{"code":{"type":"string","description":"Must match the regular expression \"^T-[0-9]+$\"."},"limit":{"type":"integer","description":"Default: 20."}},"required":["code"],"propertyOrdering":["code","limit"]}`), &want))
	is.Equal(sent, want)
	is.Equal(body.ToolConfig, map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []any{"find"}}})
	is.Equal(body.Labels, map[string]string{"tenant": "t-42"})
	is.Equal(len(body.Contents), 3) // user, model (the call), user (its response)
	call := body.Contents[1]["parts"].([]any)[0].(map[string]any)["functionCall"].(map[string]any)
	is.Equal(call["id"], nil) // a made-up id is not sent back
	fr := body.Contents[2]["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
	is.Equal(fr["name"], "find")
	is.Equal(fr["response"], map[string]any{"output": []any{map[string]any{"n": 1.0}}})
}

func TestSchemaRefused(t *testing.T) {
	is := is.New(t)
	rec, url := serve(t, answer{status: 200, body: okBody})
	bad := &toolset.Tool{Name: "odd", Schema: json.RawMessage(`{"type":"object","properties":{"v":{"allOf":[{"type":"string"}]}}}`)}
	c := newClient(t, url)
	_, err := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: []*toolset.Tool{bad}})
	var pe *schemaprofile.Error
	is.True(errors.As(err, &pe))
	is.Equal(pe.Field, "v")
	_, bodies := rec.requests()
	is.Equal(len(bodies), 0) // refused before it was sent
	is.True(c.CheckSchema("odd", bad.Schema) != nil)

	var p chat.Providers
	is.NoErr(gemini.Register(context.Background(), &p, &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI}))
	is.True(p.CheckSchema("odd", bad.Schema) != nil) // a host built on p refuses the tool
}

func TestRetriesAreTheHosts(t *testing.T) {
	tests := []struct {
		name     string
		answers  []answer
		policy   *chat.RetryPolicy
		requests int
		ok       bool
		wait     time.Duration
	}{
		{"500 then an answer", []answer{{status: 500, body: serverError}, {status: 200, body: okBody}}, &chat.RetryPolicy{BaseDelay: time.Millisecond}, 2, true, 0},
		{"500 every time: three tries, not more", []answer{{status: 500, body: serverError}}, &chat.RetryPolicy{BaseDelay: time.Millisecond}, 3, false, 0},
		{"no retry policy: one request", []answer{{status: 500, body: serverError}}, &chat.RetryPolicy{MaxAttempts: 1}, 1, false, 0},
		{"429 asks for a wait by RetryInfo", []answer{{status: 429, body: `{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`}},
			&chat.RetryPolicy{MaxAttempts: 1}, 1, false, 2 * time.Second},
		{"a stream cut before any text is tried again", []answer{{status: 200, body: "data: {\"candidates\":[]}\n\n"}, {status: 200, body: "data: " + okBody + "\n\n"}},
			&chat.RetryPolicy{BaseDelay: time.Millisecond}, 2, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec, url := serve(t, tt.answers...)
			c := chat.Retry(tt.policy)(newClient(t, url))
			var err error
			if strings.Contains(tt.name, "stream") {
				_, err = chat.Collect(c.Stream(context.Background(), []chat.Message{chat.UserText("hi")}, nil))
			} else {
				_, err = c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
			}
			is.Equal(err == nil, tt.ok)
			paths, _ := rec.requests()
			is.Equal(len(paths), tt.requests) // the SDK tried nothing on its own
			if tt.wait > 0 {
				is.Equal(chat.RetryAfterOf(err), tt.wait)
				is.True(errors.Is(err, chat.ErrRateLimited))
				var apiErr gemini.APIError
				is.True(errors.As(err, &apiErr)) // the SDK's error stays reachable
				is.True(!strings.Contains(err.Error(), testKey))
			}
		})
	}
}

// TestParallelCallsKeepTheirSignature sends back an answer of two parallel calls, the first of which carried the
// thought signature (as Gemini writes them): the signature goes back on the first call only, the ids Gemini gave
// go back, and the responses follow in a user turn, in order.
func TestParallelCallsKeepTheirSignature(t *testing.T) {
	is := is.New(t)
	const sig = "c2lnbmF0dXJlLW9mLXRoZS1maXJzdC1jYWxs"
	answer1 := `{"candidates":[{"content":{"parts":[` +
		`{"functionCall":{"id":"fc_a","name":"get_ticket","args":{"number":4711}},"thoughtSignature":"` + sig + `"},` +
		`{"functionCall":{"id":"fc_b","name":"get_ticket","args":{"number":4712}}}],"role":"model"},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":20,"thoughtsTokenCount":50,"totalTokenCount":100},"modelVersion":"gemini-3-pro","responseId":"r1"}`
	rec, url := serve(t, answer{status: 200, body: answer1}, answer{status: 200, body: okBody})
	c := newClient(t, url)
	msgs := []chat.Message{chat.UserText("Both?")}
	resp, err := c.Respond(context.Background(), msgs, &chat.Options{Tools: []*toolset.Tool{{Name: "get_ticket", Schema: json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"}}}`)}}})
	is.NoErr(err)
	is.Equal(resp.FinishReason, chat.FinishToolCalls)
	is.Equal(resp.Usage, chat.Usage{InputTokens: 30, OutputTokens: 70, TotalTokens: 100, ReasoningTokens: 50})
	answer := resp.Messages[0]
	is.Equal(len(answer.Parts), 3) // the signature, then the two calls
	is.Equal(answer.Parts[0], chat.Reasoning{Provider: gemini.ProviderName, Signature: sig})
	calls := answer.ToolCalls()
	is.Equal(calls[0].ID, "fc_a")
	is.Equal(calls[1].ID, "fc_b")

	msgs = append(msgs, answer, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{CallID: "fc_a", Result: json.RawMessage(`{"open":true}`)},
		chat.ToolResult{CallID: "fc_b", Error: "no ticket 4712 exists"},
	}})
	_, err = c.Respond(context.Background(), msgs, nil)
	is.NoErr(err)
	_, bodies := rec.requests()
	var body struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	is.NoErr(json.Unmarshal([]byte(bodies[1]), &body))
	is.Equal(len(body.Contents), 3)
	model := body.Contents[1]
	is.Equal(model.Role, "model")
	is.Equal(len(model.Parts), 2)
	is.Equal(model.Parts[0]["thoughtSignature"], sig)
	is.Equal(model.Parts[0]["functionCall"].(map[string]any)["id"], "fc_a")
	is.Equal(model.Parts[1]["thoughtSignature"], nil)
	responses := body.Contents[2]
	is.Equal(responses.Role, "user")
	is.Equal(responses.Parts[0]["functionResponse"], map[string]any{"id": "fc_a", "name": "get_ticket", "response": map[string]any{"output": map[string]any{"open": true}}})
	is.Equal(responses.Parts[1]["functionResponse"], map[string]any{"id": "fc_b", "name": "get_ticket", "response": map[string]any{"error": "no ticket 4712 exists"}})
}

// TestFunctionResponseImages checks a tool result's files in its function response, for a model that takes
// multimodal function responses (Gemini 3 and later): PNG, JPEG and WebP bytes as inline data and an image's URL
// as file data, among the response's parts; in place of any other file, a line naming it under not_shown. A model
// that does not (Gemini 2, or a name that does not say) gets every file as such a line, so that the request is
// still sent.
func TestFunctionResponseImages(t *testing.T) {
	files := []chat.File{
		{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
		{URL: "https://example.com/c.webp"},
		{MediaType: "image/gif", Data: []byte("GIF89a")},
	}
	const media = `{"id":"fc_1","name":"chart","parts":[` +
		`{"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}},` +
		`{"fileData":{"fileUri":"https://example.com/c.webp","mimeType":"image/webp"}}],` +
		`"response":{"not_shown":["[image image/gif, 6 bytes, not shown: Gemini takes PNG, JPEG and WebP images in a function response]"],"output":"Sales"}}`
	none := func(model string) string {
		why := model + " takes no images in a function response; Gemini 3 models do"
		return `{"id":"fc_1","name":"chart","response":{"not_shown":["[image image/png, 8 bytes, not shown: ` + why + `]",` +
			`"[image https://example.com/c.webp, not shown: ` + why + `]","[image image/gif, 6 bytes, not shown: ` + why + `]"],"output":"Sales"}}`
	}
	tests := []struct{ model, want string }{
		{"gemini-3-flash-preview", media},
		{"gemini-3.1-pro-preview", media},
		{"models/gemini-10-ultra", media},
		{"gemini-2.5-flash", none("gemini-2.5-flash")},
		{"gemini-flash-latest", none("gemini-flash-latest")},
		{"tunedModels/charts-1", none("tunedModels/charts-1")},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			is := is.New(t)
			rec, url := serve(t, answer{status: 200, body: okBody})
			msgs := []chat.Message{
				chat.UserText("Draw it."),
				{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "fc_1", Name: "chart", Arguments: json.RawMessage(`{}`)}}},
				{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "fc_1", Result: json.RawMessage(`"Sales"`), Files: files}}},
			}
			_, err := newClient(t, url).Respond(context.Background(), msgs, &chat.Options{Model: tt.model})
			is.NoErr(err)
			_, bodies := rec.requests()
			var body struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse json.RawMessage `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			is.NoErr(json.Unmarshal([]byte(bodies[0]), &body))
			var fr any
			is.NoErr(json.Unmarshal(body.Contents[2].Parts[0].FunctionResponse, &fr))
			got, _ := json.Marshal(fr) // keys sorted
			is.Equal(string(got), tt.want)
		})
	}
}
