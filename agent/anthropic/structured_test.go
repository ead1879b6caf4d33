package anthropic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestStructuredOutput checks a response format on the Messages API: output_config.format of type
// json_schema, its schema in the subset Claude's structured outputs take (every object closed, optional
// properties left optional, the constraints the grammar has no room for said in descriptions), beside the
// tools, which the API takes in the same request.
func TestStructuredOutput(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	schema := `{"type":"object","properties":{"decision":{"type":"string","enum":["close","answer"]},"priority":{"type":"integer","minimum":1,"maximum":5},` +
		`"reasons":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},"where":{"type":"object","properties":{"lat":{"type":"number"}}}},"required":["decision","priority","reasons"]}`
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("Ticket 4711?")}, &chat.Options{
		Tools: providertest.Tools(), ResponseFormat: &chat.ResponseFormat{Name: "Verdict", Schema: json.RawMessage(schema)}})
	is.NoErr(err)
	var req struct {
		OutputConfig struct {
			Format struct {
				Type   string          `json:"type"`
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
		Tools []map[string]any `json:"tools"`
	}
	is.NoErr(json.Unmarshal(*body, &req))
	is.Equal(req.OutputConfig.Format.Type, "json_schema")
	var got map[string]any
	is.NoErr(json.Unmarshal(req.OutputConfig.Format.Schema, &got))
	is.Equal(got["additionalProperties"], false)
	is.Equal(got["required"], []any{"decision", "priority", "reasons"}) // optional stays optional
	props := got["properties"].(map[string]any)
	is.Equal(props["priority"], map[string]any{"type": "integer", "description": "At least 1. At most 5."})
	is.Equal(props["reasons"], map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1.0, "description": "At most 3 items."})
	is.Equal(props["where"].(map[string]any)["additionalProperties"], false)
	is.Equal(len(req.Tools), len(providertest.Tools())) // tools and a JSON answer in one request
}

// TestStructuredOutputRefused checks that a schema Claude's structured outputs cannot take is refused before the
// request, naming the field: a map, a recursive type.
func TestStructuredOutputRefused(t *testing.T) {
	for _, tt := range []struct{ schema, field, reason string }{
		{`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`, "labels", "not declared"},
		{`{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}}}}`, "(the whole schema)", "recursive"},
	} {
		is := is.New(t)
		c, body := capture(t)
		_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{
			ResponseFormat: &chat.ResponseFormat{Name: "Tree", Schema: json.RawMessage(tt.schema)}})
		var pe *schemaprofile.Error
		is.True(errors.As(err, &pe))
		is.Equal(pe.Tool, "Tree")
		is.Equal(pe.Field, tt.field)
		is.True(strings.Contains(pe.Reason, tt.reason))
		is.Equal(*body, []byte(nil)) // refused before it was sent
	}
}

// TestForcedToolWithThinkingRefused checks that a forced tool (an answer tool, say) with extended thinking is
// refused before the request: the API takes only the auto and none choices while Claude thinks.
func TestForcedToolWithThinkingRefused(t *testing.T) {
	for _, choice := range []string{"required", "get_ticket"} {
		is := is.New(t)
		c, body := capture(t)
		_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: providertest.Tools(), ToolChoice: choice,
			Reasoning: &chat.ReasoningOptions{BudgetTokens: 2048}})
		is.True(errors.Is(err, chat.ErrInvalidRequest))
		is.True(strings.Contains(err.Error(), "ResponseFormat")) // says what to do instead
		is.Equal(*body, []byte(nil))
		_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: providertest.Tools(), ToolChoice: choice})
		is.NoErr(err) // without thinking, forced as asked
	}
	is := is.New(t)
	c, _ := capture(t)
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: providertest.Tools(), ToolChoice: "auto",
		Reasoning: &chat.ReasoningOptions{BudgetTokens: 2048}})
	is.NoErr(err)
}

// TestStrictTools checks WithStrictTools: a tool Claude's structured outputs can describe goes with strict: true,
// its schema in their subset (closed, the bounds said in the description); one they cannot (a map) goes as it is,
// without strict; without the option no tool is strict.
func TestStrictTools(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	answer := &toolset.Tool{Name: "final_result", Description: "The answer.",
		Schema: json.RawMessage(`{"type":"object","properties":{"priority":{"type":"integer","minimum":1,"maximum":5}},"required":["priority"]}`)}
	labels := &toolset.Tool{Name: "label", Schema: json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`)}
	opts := &chat.Options{Tools: []*toolset.Tool{answer, labels}, ToolChoice: "required"}
	tools := func() []map[string]any {
		var req struct {
			Tools []map[string]any `json:"tools"`
		}
		is.NoErr(json.Unmarshal(*body, &req))
		return req.Tools
	}
	_, err := c.WithStrictTools(true).Respond(t.Context(), []chat.Message{chat.UserText("hi")}, opts)
	is.NoErr(err)
	sent := tools()
	is.Equal(sent[0]["strict"], true)
	is.Equal(sent[0]["input_schema"], map[string]any{"type": "object", "additionalProperties": false, "required": []any{"priority"},
		"properties": map[string]any{"priority": map[string]any{"type": "integer", "description": "At least 1. At most 5."}}})
	is.Equal(sent[1]["strict"], nil) // a map: strict mode cannot describe it, so the tool goes without
	is.Equal(sent[1]["input_schema"].(map[string]any)["properties"].(map[string]any)["labels"].(map[string]any)["additionalProperties"], map[string]any{"type": "string"})

	_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, opts)
	is.NoErr(err)
	is.Equal(tools()[0]["strict"], nil)
}
