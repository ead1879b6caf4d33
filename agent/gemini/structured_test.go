package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// TestStructuredOutputWithTools checks a response format beside tools: Gemini 3 takes both in one request (the
// schema as responseJsonSchema, JSON Schema, never the OpenAPI subset's responseSchema); Gemini 2 refuses the pair
// ("Function calling with a response mime type: 'application/json' is unsupported"), so the library refuses it
// first, saying what to do, and sends nothing.
func TestStructuredOutputWithTools(t *testing.T) {
	opts := func(model string) *chat.Options {
		return &chat.Options{Model: model, Tools: providertest.Tools(), ResponseFormat: &chat.ResponseFormat{Name: "Verdict",
			Schema: json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string"},"note":{"type":"string"}},"required":["decision"]}`)}}
	}
	t.Run("gemini 3", func(t *testing.T) {
		is := is.New(t)
		body := sentBody(t, []chat.Message{chat.UserText("hi")}, opts("gemini-3-pro-preview"))
		gen := body["generationConfig"].(map[string]any)
		is.Equal(gen["responseMimeType"], "application/json")
		is.Equal(gen["responseSchema"], nil)
		schema := gen["responseJsonSchema"].(map[string]any)
		is.Equal(schema["required"], []any{"decision"}) // optional stays optional
		is.Equal(schema["propertyOrdering"], []any{"decision", "note"})
		is.Equal(len(body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)), len(providertest.Tools()))
	})
	t.Run("gemini 2", func(t *testing.T) {
		is := is.New(t)
		rec, url := serve(t, answer{status: 200, body: okBody})
		_, err := newClient(t, url).Respond(context.Background(), []chat.Message{chat.UserText("hi")}, opts("gemini-2.5-flash"))
		is.True(errors.Is(err, chat.ErrInvalidRequest))
		_, bodies := rec.requests()
		is.Equal(len(bodies), 0) // refused before it was sent
		// Alone, the answer's schema goes as before.
		body := sentBody(t, []chat.Message{chat.UserText("hi")}, &chat.Options{Model: "gemini-2.5-flash", ResponseFormat: opts("").ResponseFormat})
		is.True(body["generationConfig"].(map[string]any)["responseJsonSchema"] != nil)
	})
}
