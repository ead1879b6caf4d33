package mcp

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"
)

func TestInputSchema(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		want   string // the normalized schema, when it can be offered
		reason string // why it cannot, otherwise
	}{
		{
			name: "object schema kept, keys sorted",
			in:   map[string]any{"type": "object", "required": []any{"q"}, "properties": map[string]any{"q": map[string]any{"type": "string"}}},
			want: `{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}`,
		},
		{name: "type and properties added", in: map[string]any{}, want: `{"properties":{},"type":"object"}`},
		{name: "properties added", in: map[string]any{"type": "object"}, want: `{"properties":{},"type":"object"}`},
		{
			name: "raw JSON decoded",
			in:   json.RawMessage(`{"type":"object","additionalProperties":false}`),
			want: `{"additionalProperties":false,"properties":{},"type":"object"}`,
		},
		{name: "missing", in: nil, reason: "the server sent no input schema"},
		{name: "raw null", in: json.RawMessage(`null`), reason: "the server sent no input schema"},
		{name: "not an object", in: json.RawMessage(`[1]`), reason: "the input schema is not a JSON object"},
		{name: "boolean schema", in: true, reason: "the input schema is not a JSON object"},
		{name: "string type", in: map[string]any{"type": "string"}, reason: `the input schema has type "string", not "object"`},
		{name: "null type", in: map[string]any{"type": nil}, reason: `the input schema has type null, not "object"`},
		{name: "type list", in: map[string]any{"type": []any{"object", "null"}}, reason: `the input schema's type is ["object","null"], not "object"`},
		{name: "properties list", in: map[string]any{"properties": []any{}}, reason: `the input schema's "properties" is [], not an object`},
		{name: "properties null", in: map[string]any{"properties": nil}, reason: `the input schema's "properties" is null, not an object`},
		{name: "required string", in: map[string]any{"required": "q"}, reason: `the input schema's "required" is "q", not an array of names`},
		{name: "required number", in: map[string]any{"required": []any{1.0}}, reason: `the input schema's "required" lists 1, not a property name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, reason := inputSchema(tt.in)
			is.Equal(reason, tt.reason)
			is.Equal(string(got), tt.want)
		})
	}
}

func TestInputSchemaLeavesServerMapAlone(t *testing.T) {
	is := is.New(t)
	in := map[string]any{"required": []any{}}
	_, reason := inputSchema(in)
	is.Equal(reason, "")
	is.Equal(len(in), 1) // the SDK's tool is not changed
}
