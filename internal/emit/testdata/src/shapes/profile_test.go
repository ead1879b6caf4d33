package shapes

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
)

// TestProfilesAcceptEveryShape adapts every generated schema of the fixture to each provider's profile, and checks
// that the adapted schema is one the provider takes and that the decoder's checks still hold: arguments a model
// writes against the adapted schema, once restored, are accepted by the generated decoder exactly when the
// original schema accepts them.
func TestProfilesAcceptEveryShape(t *testing.T) {
	_, m := tools(t)
	decoders := map[string]func([]byte) (any, error){"echo": decodeEcho, "tree": decodeTree, "kinds": decodeKinds}
	strictTools, claudeStrictTools := 0, 0
	for name, tool := range m {
		for _, p := range []*schemaprofile.Profile{schemaprofile.Gemini, schemaprofile.OpenAIStrict, schemaprofile.Anthropic, schemaprofile.AnthropicStrict} {
			t.Run(p.Name+"/"+name, func(t *testing.T) {
				is := is.New(t)
				adapted, err := p.Adapt(name, tool.Schema)
				if p == schemaprofile.AnthropicStrict {
					// Claude's structured outputs (an answer's format, a strict tool) refuse these shapes; the
					// anthropic provider sends such a tool without strict, and an answer type in tool mode.
					want, refused := claudeStrictRefuses[name]
					if refused || err != nil {
						var pe *schemaprofile.Error
						is.True(errors.As(err, &pe))
						is.Equal(pe.Tool, name)
						is.Equal(pe.Field+": "+pe.Reason, want)
						return
					}
				}
				if p == schemaprofile.OpenAIStrict && err != nil {
					// Strict mode cannot describe every shape; the openai provider sends these tools without it.
					var pe *schemaprofile.Error
					is.True(errors.As(err, &pe))
					is.Equal(pe.Tool, name)
					is.True(pe.Field != "")
					is.True(strings.Contains(pe.Reason, "any type") || strings.Contains(pe.Reason, "not declared"))
					return
				}
				is.NoErr(err)
				if p == schemaprofile.OpenAIStrict {
					strictTools++
					checkStrict(t, adapted.Schema)
				} else if p == schemaprofile.Gemini {
					checkKeywords(t, adapted.Schema, geminiKeywords)
				} else if p == schemaprofile.AnthropicStrict {
					claudeStrictTools++
					checkClaudeStrict(t, adapted.Schema)
				} else {
					is.True(!adapted.Changed) // Claude takes the schema as it is
				}
				_, err = schematest.Compile(adapted.Schema) // still JSON Schema
				is.NoErr(err)
				original, err := schematest.Compile(tool.Schema)
				is.NoErr(err)
				var ref *reference
				if d := decoders[name]; d != nil {
					r := newReference(t, tool.Schema, d)
					ref = &r
				}
				accepted := 0
				for seed := range int64(40) {
					args, err := chattest.GenerateArguments(adapted.Schema, seed)
					if err != nil && strings.Contains(err.Error(), "nests too deeply") {
						continue // a recursive schema whose every field is required: the generator gives up
					}
					if err != nil {
						t.Fatalf("no arguments for the adapted schema: %v", err)
					}
					restored := adapted.Restore(args)
					if ref != nil {
						differential(t, tool, *ref, restored)
					}
					inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(restored))
					is.NoErr(err)
					valid := original.Validate(inst) == nil
					_, decErr := tool.Decode(restored)
					if valid != (decErr == nil) {
						t.Fatalf("%s (restored from %s): the original schema says valid=%v, the decoder says %v", restored, args, valid, decErr)
					}
					if valid {
						accepted++
					}
				}
				if p == schemaprofile.OpenAIStrict || p == schemaprofile.AnthropicStrict {
					is.True(accepted > 0) // the adapted schema still leads a model to arguments the tool takes
				}
			})
		}
	}
	if strictTools < len(m)/2 {
		t.Errorf("strict mode describes %d of %d tools", strictTools, len(m))
	}
	if claudeStrictTools != len(m)-len(claudeStrictRefuses) {
		t.Errorf("Claude's strict profile describes %d of %d tools, want all but %d", claudeStrictTools, len(m), len(claudeStrictRefuses))
	}
}

// claudeStrictRefuses are the fixture's tools whose schemas Claude's structured outputs cannot take, with the field
// and reason of the profile's *schemaprofile.Error: a map's undeclared keys, and recursion.
var claudeStrictRefuses = map[string]string{
	"echo":  "scores: an object whose keys are not declared (a map), which Claude's structured outputs cannot take",
	"kinds": "labels: an object whose keys are not declared (a map), which Claude's structured outputs cannot take",
	"tree":  "(the whole schema): a recursive schema, which Claude's structured outputs cannot take",
}

var claudeStrictKeywords = []string{"$ref", "$defs", "definitions", "type", "anyOf", "description", "title", "enum", "const",
	"properties", "additionalProperties", "required", "items", "minItems", "format", "pattern"}

// checkClaudeStrict checks the rules of Claude's structured outputs: only the keywords its grammar takes, and every
// object closed.
func checkClaudeStrict(t *testing.T, schema []byte) {
	checkKeywords(t, schema, claudeStrictKeywords)
	schemas(decodeSchema(t, schema), func(o map[string]any) {
		if _, ok := o["properties"].(map[string]any); ok && o["additionalProperties"] != false {
			t.Errorf("an object without additionalProperties false in %s", schema)
		}
	})
}

func TestStrictRestoresOptionalFields(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	adapted, err := schemaprofile.OpenAIStrict.Adapt("tree", m["tree"].Schema)
	is.NoErr(err)
	// Strict mode makes the optional fields required and nullable; the model sends null for the ones it leaves out.
	args := `{"name":"a","children":[{"name":"b","children":null,"parent":null}],"parent":null}`
	restored := adapted.Restore(json.RawMessage(args))
	is.Equal(string(restored), `{"name":"a","children":[{"name":"b"}]}`)
	v, err := m["tree"].Decode(restored)
	is.NoErr(err)
	is.True(v != nil)
	is.Equal(string(adapted.Restore(json.RawMessage(`{"name":"x"}`))), `{"name":"x"}`) // nothing to do
	is.Equal(string(adapted.Restore(json.RawMessage(`{"name":`))), `{"name":`)         // the decoder answers it
}

var geminiKeywords = []string{"$defs", "$ref", "type", "format", "title", "description", "enum", "items", "prefixItems", "minItems",
	"maxItems", "minimum", "maximum", "anyOf", "properties", "additionalProperties", "required", "propertyOrdering"}

var strictKeywords = []string{"$defs", "$ref", "type", "format", "description", "enum", "const", "items", "minItems", "maxItems",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", "anyOf", "properties",
	"additionalProperties", "required"}

// schemas calls fn on every schema object within s.
func schemas(s any, fn func(map[string]any)) {
	o, ok := s.(map[string]any)
	if !ok {
		return
	}
	fn(o)
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := o[k].(map[string]any); ok {
			for _, c := range m {
				schemas(c, fn)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		schemas(o[k], fn)
	}
	if list, ok := o["anyOf"].([]any); ok {
		for _, c := range list {
			schemas(c, fn)
		}
	}
}

func decodeSchema(t *testing.T, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func checkKeywords(t *testing.T, schema []byte, allowed []string) {
	schemas(decodeSchema(t, schema), func(o map[string]any) {
		for k := range o {
			if !slices.Contains(allowed, k) {
				t.Errorf("keyword %q left in %s", k, schema)
			}
		}
	})
}

// checkStrict checks the rules of strict mode: every object lists all its properties as required and forbids
// others; no value of any type.
func checkStrict(t *testing.T, schema []byte) {
	checkKeywords(t, schema, strictKeywords)
	schemas(decodeSchema(t, schema), func(o map[string]any) {
		if len(o) == 0 {
			t.Errorf("a schema of any type in %s", schema)
		}
		props, ok := o["properties"].(map[string]any)
		if !ok {
			return
		}
		if o["additionalProperties"] != false {
			t.Errorf("an object without additionalProperties false in %s", schema)
		}
		req, _ := o["required"].([]any)
		if len(req) != len(props) {
			t.Errorf("an object whose properties are not all required in %s", schema)
		}
	})
}
