package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// sentBody sends msgs under opts and returns the request's body, decoded.
func sentBody(t *testing.T, msgs []chat.Message, opts *chat.Options) map[string]any {
	t.Helper()
	is := is.New(t)
	rec, url := serve(t, answer{status: 200, body: okBody})
	_, err := newClient(t, url).Respond(context.Background(), msgs, opts)
	is.NoErr(err)
	_, bodies := rec.requests()
	var body map[string]any
	is.NoErr(json.Unmarshal([]byte(bodies[0]), &body))
	return body
}

// roles returns the roles of the body's contents, a function response turn as "responses".
func roles(body map[string]any) []string {
	var out []string
	contents, _ := body["contents"].([]any)
	for _, c := range contents {
		c := c.(map[string]any)
		role := c["role"].(string)
		if parts, _ := c["parts"].([]any); len(parts) > 0 {
			if _, ok := parts[0].(map[string]any)["functionResponse"]; ok {
				role = "responses"
			}
		}
		out = append(out, role)
	}
	return out
}

// TestTurnOrder checks that every history becomes contents Gemini takes: a user turn first, a function call's
// responses right after it, empty parts dropped without losing the turn's other parts.
func TestTurnOrder(t *testing.T) {
	call := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: ""},
		chat.ToolCall{ID: "c1", Name: "find", Arguments: json.RawMessage(`{}`)}}}
	result := chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c1", Result: json.RawMessage(`1`)}}}
	tests := []struct {
		name string
		msgs []chat.Message
		want []string
	}{
		{"instructions alone", []chat.Message{chat.SystemText("Greet the user.")}, []string{"user"}},
		{"no messages", nil, []string{"user"}},
		{"the model's call first", []chat.Message{call, result}, []string{"user", "model", "responses"}},
		{"a user's text between a call and its result", []chat.Message{chat.UserText("go"), call, chat.UserText("hurry"), result},
			[]string{"user", "model", "responses", "user"}},
		{"two user messages in a row", []chat.Message{chat.UserText("a"), chat.UserText("b")}, []string{"user"}},
		{"an empty model answer", []chat.Message{chat.UserText("a"), {Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{}}}, chat.UserText("b")},
			[]string{"user"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			body := sentBody(t, tt.msgs, nil)
			is.Equal(roles(body), tt.want)
			contents := body["contents"].([]any)
			for _, c := range contents {
				parts := c.(map[string]any)["parts"].([]any)
				is.True(len(parts) > 0) // no turn without parts
				for _, p := range parts {
					is.True(len(p.(map[string]any)) > 0) // no empty part
				}
			}
			first := contents[0].(map[string]any)["parts"].([]any)[0].(map[string]any)
			is.True(first["text"] != "") // the first user turn says something
		})
	}
}

// TestExtraMerges checks that Options.Extra merges into the request: thinkingConfig joins generationConfig
// beside the temperature and the response format, and a field the library set is an error naming it.
func TestExtraMerges(t *testing.T) {
	is := is.New(t)
	temp := 0.5
	opts := &chat.Options{Temperature: &temp,
		ResponseFormat: &chat.ResponseFormat{Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
		Extra:          map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":512}}`)}}
	body := sentBody(t, []chat.Message{chat.UserText("hi")}, opts)
	gen := body["generationConfig"].(map[string]any)
	is.Equal(gen["temperature"], 0.5)
	is.Equal(gen["responseMimeType"], "application/json")
	is.True(gen["responseJsonSchema"] != nil)
	is.Equal(gen["thinkingConfig"], map[string]any{"includeThoughts": true, "thinkingBudget": 512.0})

	rec, url := serve(t, answer{status: 200, body: okBody})
	opts.Extra = map[string]json.RawMessage{"generationConfig": json.RawMessage(`{"temperature":1}`)}
	_, err := newClient(t, url).Respond(context.Background(), []chat.Message{chat.UserText("hi")}, opts)
	var ce *chat.ExtraConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Field, "generationConfig.temperature")
	_, bodies := rec.requests()
	is.Equal(len(bodies), 0) // refused before the request
}

// TestReasoningOption checks the mapping of the typed reasoning options onto thinkingConfig.
func TestReasoningOption(t *testing.T) {
	yes := true
	tests := []struct {
		name  string
		model string
		ro    chat.ReasoningOptions
		want  map[string]any
	}{
		{"a budget", "gemini-2.5-flash", chat.ReasoningOptions{BudgetTokens: 2048, IncludeThoughts: &yes},
			map[string]any{"thinkingBudget": 2048.0, "includeThoughts": true}},
		{"off", "gemini-2.5-flash", chat.ReasoningOptions{Effort: chat.ReasoningNone}, map[string]any{"thinkingBudget": 0.0}},
		{"an effort on Gemini 2", "gemini-2.5-flash", chat.ReasoningOptions{Effort: chat.ReasoningLow}, map[string]any{"thinkingBudget": 4096.0}},
		{"an effort on Gemini 3", "gemini-3-pro-preview", chat.ReasoningOptions{Effort: chat.ReasoningHigh}, map[string]any{"thinkingLevel": "HIGH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			body := sentBody(t, []chat.Message{chat.UserText("hi")}, &chat.Options{Model: tt.model, Reasoning: &tt.ro})
			is.Equal(body["generationConfig"].(map[string]any)["thinkingConfig"], tt.want)
		})
	}
}

// TestFileRefused checks that a file Gemini cannot take is refused before the request, saying what to set.
func TestFileRefused(t *testing.T) {
	is := is.New(t)
	rec, url := serve(t, answer{status: 200, body: okBody})
	_, err := newClient(t, url).Respond(context.Background(),
		[]chat.Message{chat.UserFile("what is it?", chat.File{URL: "https://example.com/files/4711"})}, nil)
	is.True(errors.Is(err, chat.ErrInvalidRequest))
	is.True(strings.Contains(err.Error(), "set File.MediaType"))
	_, bodies := rec.requests()
	is.Equal(len(bodies), 0)
}
