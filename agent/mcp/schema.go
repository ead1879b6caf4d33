package mcp

import (
	"encoding/json"
	"fmt"
)

// inputSchema returns the JSON of a server tool's input schema as an object schema, or the reason it cannot be
// one. The SDK's client decodes schemas into a map; other forms (a json.RawMessage from a hand-made session) are
// decoded first. A schema without "type" gets "type": "object", and one without "properties" gets an empty
// object, since some providers reject an object schema that lacks them. Keys come out sorted, so the same schema
// always yields the same bytes and a provider's prompt cache keeps hitting.
func inputSchema(v any) (json.RawMessage, string) {
	var m map[string]any
	switch v := v.(type) {
	case nil:
		return nil, "the server sent no input schema"
	case map[string]any:
		m = v
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Sprintf("the input schema cannot be encoded: %v", err)
		}
		if string(raw) == "null" {
			return nil, "the server sent no input schema"
		}
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return nil, "the input schema is not a JSON object"
		}
	}

	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	switch typ := m["type"].(type) {
	case nil:
		if _, ok := m["type"]; ok {
			return nil, `the input schema has type null, not "object"`
		}
		out["type"] = "object"
	case string:
		if typ != "object" {
			return nil, fmt.Sprintf(`the input schema has type %q, not "object"`, typ)
		}
	default:
		return nil, fmt.Sprintf(`the input schema's type is %s, not "object"`, jsonText(typ))
	}
	switch props := m["properties"].(type) {
	case nil:
		if _, ok := m["properties"]; ok {
			return nil, `the input schema's "properties" is null, not an object`
		}
		out["properties"] = map[string]any{}
	case map[string]any:
	default:
		return nil, fmt.Sprintf(`the input schema's "properties" is %s, not an object`, jsonText(props))
	}
	if req, ok := m["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return nil, fmt.Sprintf(`the input schema's "required" is %s, not an array of names`, jsonText(req))
		}
		for _, r := range list {
			if _, ok := r.(string); !ok {
				return nil, fmt.Sprintf(`the input schema's "required" lists %s, not a property name`, jsonText(r))
			}
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Sprintf("the input schema cannot be encoded: %v", err)
	}
	return raw, ""
}

// jsonText shows a decoded JSON value in a message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
