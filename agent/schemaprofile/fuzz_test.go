package schemaprofile_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// FuzzAdapt feeds any bytes to every profile as a schema, and any bytes to Restore as arguments: neither panics,
// an adapted schema is valid JSON, an error names its tool, and Restore returns valid JSON for valid JSON.
func FuzzAdapt(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string"},"o":{"type":"object","properties":{"x":{"type":"integer"}}}},"required":["o"]}`), []byte(`{"a":null,"o":{"x":null}}`))
	f.Add([]byte(`{"type":"object","properties":{"t":{"anyOf":[{"$ref":"#"},{"type":"null"}]},"l":{"type":"array","items":{"$ref":"#/$defs/I"}}},"$defs":{"I":{"type":"object","properties":{"k":{"const":1}}}}}`), []byte(`{"t":{"t":null},"l":[{"k":null}]}`))
	f.Add([]byte(`{"type":"object","properties":{"m":{"additionalProperties":{"type":"string"}},"n":{"not":{}}}}`), []byte(`[]`))
	f.Add([]byte(`{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/A"}}}`), []byte(`{`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		for _, p := range []*schemaprofile.Profile{schemaprofile.OpenAIStrict, schemaprofile.Gemini, schemaprofile.Anthropic, schemaprofile.AnthropicStrict} {
			a, err := p.Adapt("fuzzed", schema)
			if err != nil {
				var pe *schemaprofile.Error
				if !errors.As(err, &pe) || pe.Tool != "fuzzed" {
					t.Fatalf("%s: error %v is not a *schemaprofile.Error naming the tool", p.Name, err)
				}
				continue
			}
			if !json.Valid(a.Schema) {
				t.Fatalf("%s: adapted %s into invalid JSON %s", p.Name, schema, a.Schema)
			}
			out := a.Restore(args)
			if json.Valid(args) && !json.Valid(out) {
				t.Fatalf("%s: restored %s into invalid JSON %s", p.Name, args, out)
			}
		}
	})
}
