package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
)

// TestRegisterByModel chooses the API per model: the Responses API for reasoning models, Chat Completions for
// the others, as the requests' paths show.
func TestRegisterByModel(t *testing.T) {
	tests := []struct {
		model, path string
		custom      func(string) bool
	}{
		{"gpt-5-mini", "/responses", nil},
		{"o4-mini", "/responses", nil},
		{"o3", "/responses", nil},
		{"gpt-4.1-mini", "/chat/completions", nil},
		{"gpt-4o", "/chat/completions", nil},
		{"o3mega-custom", "/chat/completions", nil},
		{"gpt-4.1-mini", "/responses", func(string) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Path
				http.Error(w, `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":null}}`, http.StatusBadRequest)
			}))
			defer srv.Close()
			p := chat.NewProviders(nil)
			openai.RegisterByModel(p, tt.custom, option.WithBaseURL(srv.URL), option.WithAPIKey(testKey))
			c, err := p.Client(context.Background(), openai.ProviderName, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
			if got != tt.path {
				t.Errorf("%s went to %q, want %q", tt.model, got, tt.path)
			}
		})
	}
}

// TestFunctionCallOutputImages checks a tool result's files in the Responses API: the function call's output
// becomes a list, the result's text then each image (bytes as a data URL, an uploaded file by its id, a URL);
// in place of a file the API does not take as an image, a text item naming it. A result without files keeps
// its output a string.
func TestFunctionCallOutputImages(t *testing.T) {
	is := is.New(t)
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		http.Error(w, `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":null}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	c := openai.NewResponses(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithMaxRetries(0)).WithModel("gpt-5-mini")
	msgs := []chat.Message{
		chat.UserText("Draw it."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: "call_1", Name: "chart", Arguments: json.RawMessage(`{}`)},
			chat.ToolCall{ID: "call_2", Name: "chart", Arguments: json.RawMessage(`{}`)},
		}},
		{Role: chat.RoleTool, Parts: []chat.Part{
			chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`"Sales"`), Files: []chat.File{
				{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
				{URL: "file-abc123"},
				{URL: "https://example.com/c.webp"},
				{MediaType: "image/tiff", Data: []byte("II*\x00")},
			}},
			chat.ToolResult{CallID: "call_2", Result: json.RawMessage(`"none"`)},
		}},
	}
	_, err := c.Respond(context.Background(), msgs, nil)
	is.True(err != nil) // the server refuses; only the request matters
	var req struct {
		Input []map[string]any `json:"input"`
	}
	is.NoErr(json.Unmarshal(body, &req))
	var outputs []string
	for _, it := range req.Input {
		if it["type"] == "function_call_output" {
			b, _ := json.Marshal(it["output"]) // keys sorted
			outputs = append(outputs, it["call_id"].(string)+" "+string(b))
		}
	}
	is.Equal(outputs, []string{
		`call_1 [{"text":"Sales","type":"input_text"},` +
			`{"detail":"auto","image_url":"data:image/png;base64,iVBORw0KGgo=","type":"input_image"},` +
			`{"detail":"auto","file_id":"file-abc123","type":"input_image"},` +
			`{"detail":"auto","image_url":"https://example.com/c.webp","type":"input_image"},` +
			`{"text":"[image image/tiff, 4 bytes, not shown: OpenAI takes PNG, JPEG, WebP and GIF images]","type":"input_text"}]`,
		`call_2 "none"`,
	})
}
