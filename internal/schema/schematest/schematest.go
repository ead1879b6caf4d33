// Package schematest checks generated JSON Schemas in tests: each must be a valid draft 2020-12 schema, compile,
// and have every $ref resolve.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// metaschema is the draft 2020-12 metaschema, which the library carries built in.
const metaschema = "https://json-schema.org/draft/2020-12/schema"

// Compile checks doc against the 2020-12 metaschema and compiles it, with the vocabularies asserted, as draft
// 2020-12. Compiling resolves every $ref, so a dangling one is an error.
func Compile(doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	meta, err := compiledMeta()
	if err != nil {
		return nil, fmt.Errorf("compile the metaschema: %w", err)
	}
	if err := meta.Validate(v); err != nil {
		return nil, fmt.Errorf("schema is not valid against the 2020-12 metaschema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertVocabs()
	// Generated decoders check the date-time and date formats, so the reference checks them too.
	c.AssertFormat()
	const loc = "mem://tool/schema.json"
	if err := c.AddResource(loc, v); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return s, nil
}

// compiledMeta compiles the metaschema once; a compiled schema is safe for concurrent use.
var compiledMeta = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.NewCompiler().Compile(metaschema)
})

// Validate reports whether the JSON document inst is valid against s, with the validator's message if not.
func Validate(s *jsonschema.Schema, inst []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	// UnmarshalJSON reads one value; trailing data makes the document invalid, as encoding/json says.
	return s.Validate(v)
}

// Short shortens a validation error to its first line, for test logs.
func Short(err error) string {
	if err == nil {
		return ""
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// HasDuplicateKeys reports whether the valid JSON document data has an object that names a key twice, outside the
// values of the top-level properties named in opaque (a json.RawMessage or any field, which generated decoders
// keep as they are). Generated decoders refuse such documents; schema validation and encoding/json read them,
// keeping the last value.
func HasDuplicateKeys(data []byte, opaque ...string) bool {
	if !json.Valid(data) {
		// The token reader would not move past a syntax error; invalid JSON has no keys to speak of.
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(depth int) bool
	walk = func(depth int) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := k.(string)
				if seen[key] {
					return true
				}
				seen[key] = true
				if depth == 0 && slices.Contains(opaque, key) {
					var skip json.RawMessage
					if dec.Decode(&skip) != nil {
						return false
					}
					continue
				}
				if walk(depth + 1) {
					return true
				}
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk(depth + 1) {
					return true
				}
			}
			dec.Token()
		}
		return false
	}
	return walk(0)
}
