package anthropic_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

// capture answers every request with one short message and keeps the last request's body.
func capture(t *testing.T) (*anthropic.Client, *[]byte) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
	}))
	t.Cleanup(srv.Close)
	c := anthropic.New(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithAPIKey(testKey)).WithModel("claude-sonnet-4-5")
	return c, &body
}

// TestCacheBreakpoints checks where the stable prefix's breakpoints go: after the tools, after the system
// prompt, and on the last block of the prefix's last message that can carry one.
func TestCacheBreakpoints(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	msgs := []chat.Message{
		chat.UserText("Is ticket 4711 open?"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Text{Text: "Let me look."},
			chat.ToolCall{ID: "toolu_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)},
			chat.Reasoning{Provider: anthropic.ProviderName, Text: "after", Signature: "sig"}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "toolu_1", Result: json.RawMessage(`{"open":true}`)}}},
		chat.UserText("And 4712?"),
	}
	_, err := c.Respond(t.Context(), msgs, &chat.Options{Instructions: "Be brief.", Tools: providertest.Tools(), CacheMessages: 2})
	is.NoErr(err)
	var req struct {
		System   []map[string]any `json:"system"`
		Tools    []map[string]any `json:"tools"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	is.NoErr(json.Unmarshal(*body, &req))
	marked := func(m map[string]any) bool { return m["cache_control"] != nil }
	is.True(marked(req.System[0]))
	is.True(!marked(req.Tools[0]))
	is.True(marked(req.Tools[1])) // after the last tool
	is.Equal(len(req.Messages), 3)
	is.Equal(req.Messages[2].Role, "user") // the tool result and the next question share the user turn
	var marks []string
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if marked(b) {
				marks = append(marks, b["type"].(string))
			}
		}
	}
	is.Equal(marks, []string{"tool_use"}) // the thinking block cannot carry one: the tool use before it does
	is.Equal(strings.Count(string(*body), "cache_control"), 3)

	_, err = c.Respond(t.Context(), msgs, &chat.Options{Tools: providertest.Tools()})
	is.NoErr(err)
	is.True(!strings.Contains(string(*body), "cache_control")) // no marks without a stable prefix
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		msgs []chat.Message
		opts *chat.Options
		want string
	}{
		{"file type", []chat.Message{chat.UserFile("x", chat.File{MediaType: "application/zip", Data: []byte("PK"), Name: "a.zip"})}, nil, `"application/zip"`},
		{"schema not an object", []chat.Message{chat.UserText("x")}, &chat.Options{Tools: []*toolset.Tool{{Name: "t", Schema: json.RawMessage(`{"type":"array"}`)}}}, `tool "t"`},
		{"response schema", []chat.Message{chat.UserText("x")}, &chat.Options{ResponseFormat: &chat.ResponseFormat{Name: "r", Schema: json.RawMessage(`[1]`)}}, `response format: anthropic cannot take tool "r": field (the arguments): the schema is not a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, body := capture(t)
			_, err := c.Respond(t.Context(), tt.msgs, tt.opts)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want)) // the error names what is wrong
			is.Equal(*body, []byte(nil))                    // nothing was sent
		})
	}
}

// TestOverloadInStream checks an overload the API reports inside a stream that had begun: a cut answer, an
// overload, temporary.
func TestOverloadInStream(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	}))
	defer srv.Close()
	c := anthropic.New(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithAPIKey(testKey)).WithModel("claude-sonnet-4-5")
	_, err := chat.Collect(c.Stream(t.Context(), []chat.Message{chat.UserText("hi")}, nil))
	is.True(errors.Is(err, chat.ErrStreamCut))
	is.True(errors.Is(err, chat.ErrOverloaded))
	is.True(chat.IsTemporary(err))
	var pe *chat.ProviderError
	is.True(errors.As(err, &pe))
	is.Equal(pe.Message, "Overloaded")
}

// TestSchemaRefused offers tools whose schemas the Messages API refuses with a 400: a host on the client, or on
// providers where the provider is registered, refuses them when it is built, naming the tool and the field; a
// tool made at run time is refused before its request is sent.
func TestSchemaRefused(t *testing.T) {
	tests := []struct {
		name, schema, field, reason string
	}{
		{"anyOf at the top", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, "", "no anyOf at the top"},
		{"oneOf at the top", `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`, "", "no oneOf at the top"},
		{"allOf at the top", `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}]}`, "", "no allOf at the top"},
		{"a string for input", `{"type":"string"}`, "", "as an object, not string"},
		{"a reference to fetch", `{"type":"object","properties":{"where":{"$ref":"https://example.com/place.json"}}}`, "where", "a reference outside the schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			bad := &toolset.Tool{Name: "odd", Description: "An odd tool.", Schema: json.RawMessage(tt.schema)}
			check := func(err error) {
				t.Helper()
				var pe *schemaprofile.Error
				is.True(errors.As(err, &pe))
				is.Equal(pe.Provider, anthropic.ProviderName)
				is.Equal(pe.Tool, "odd")
				is.Equal(pe.Field, tt.field)
				is.True(strings.Contains(pe.Reason, tt.reason))
			}
			c, body := capture(t)
			check(c.CheckSchema("odd", bad.Schema))

			_, err := agent.NewHost(&schemaAgent{}, agent.Config{Client: c, Tools: []toolset.Source{bad}})
			check(err)

			var p chat.Providers
			anthropic.Register(&p, option.WithoutEnvironmentDefaults(), option.WithAPIKey(testKey))
			_, err = agent.NewHost(&schemaAgent{}, agent.Config{Providers: &p, Tools: []toolset.Source{bad}})
			check(err)

			_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: []*toolset.Tool{bad}})
			check(err)
			is.Equal(len(*body), 0) // never sent
		})
	}
	t.Run("the suite's tools are taken", func(t *testing.T) {
		is := is.New(t)
		c, _ := capture(t)
		for _, tool := range providertest.Tools() {
			is.NoErr(c.CheckSchema(tool.Name, tool.Schema))
		}
		_, err := agent.NewHost(&schemaAgent{}, agent.Config{Client: c, Tools: []toolset.Source{providertest.Tools()[0]}})
		is.NoErr(err)
	})
}

// schemaAgent is an agent with nothing of its own, offered the tools of its host's configuration.
type schemaAgent struct{ agent.Agent }

func (a *schemaAgent) Declare() { a.WithInstructions("You test schemas.") }

// TestToolResultImages checks a tool result's files in its tool_result block: after the result's text, an image
// by its bytes or its URL as an image block; in place of a file Claude does not take there, a text block naming
// it, so that the request is still sent.
func TestToolResultImages(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	msgs := []chat.Message{
		chat.UserText("Draw it."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "toolu_1", Name: "chart", Arguments: json.RawMessage(`{}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "toolu_1", Result: json.RawMessage(`"Sales"`), Files: []chat.File{
			{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
			{URL: "https://example.com/c.webp"},
			{MediaType: "image/svg+xml", Data: []byte("<svg/>")},
			{MediaType: "application/pdf", Data: []byte("%PDF")},
		}}}},
	}
	_, err := c.Respond(t.Context(), msgs, nil)
	is.NoErr(err)
	var req struct {
		Messages []struct {
			Content []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	is.NoErr(json.Unmarshal(*body, &req))
	is.Equal(len(req.Messages), 3)
	blk := req.Messages[2].Content[0]
	is.Equal(blk.Type, "tool_result")
	var content []map[string]any
	is.NoErr(json.Unmarshal(blk.Content, &content))
	got, _ := json.Marshal(content) // keys sorted
	is.Equal(string(got), `[{"text":"Sales","type":"text"},`+
		`{"source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"},"type":"image"},`+
		`{"source":{"type":"url","url":"https://example.com/c.webp"},"type":"image"},`+
		`{"text":"[image image/svg+xml, 6 bytes, not shown: Claude takes JPEG, PNG, GIF and WebP images in a tool result]","type":"text"},`+
		`{"text":"[file application/pdf, 4 bytes, not shown: Claude takes JPEG, PNG, GIF and WebP images in a tool result]","type":"text"}]`)
}
