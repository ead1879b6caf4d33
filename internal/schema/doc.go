// Package schema writes the JSON Schema (draft 2020-12) of a tool's arguments and of its settings overrides from
// the parser's model. The generator embeds the result in generated code as a literal, so nothing infers a schema
// at run time.
//
// The output is compact JSON with a fixed key order, so that generated files are stable across runs:
//
//	{"type":"object","properties":{"query":{"type":"string","description":"Words the title contains."},
//	 "limit":{"type":"integer","default":20,"minimum":1,"maximum":100}},"required":["query"],
//	 "additionalProperties":false}
//
// # How Go types are described
//
//   - bool is "boolean"; float32 and float64 are "number".
//   - Signed and unsigned integers are "integer". Integers narrower than 64 bits carry the minimum and maximum
//     of their Go type, and unsigned ones a minimum of 0, unless the field's tag sets that keyword itself: the
//     model learns the range that decoding enforces anyway.
//   - string is "string"; a named string type whose constants are enumerated carries "enum".
//   - []byte is a base64 "string" ("contentEncoding": "base64"), as encoding/json writes it.
//   - time.Time is a "string" with "format": "date-time" (RFC 3339).
//   - json.RawMessage and any are {}: any JSON value.
//   - Slices are "array" with "items"; arrays also fix "minItems" and "maxItems" to their length.
//   - Maps with string keys are "object" with "additionalProperties" describing the values.
//   - Structs are "object" with "properties", "required" and "additionalProperties": false, inline where they
//     appear. A named struct type that appears more than once, and any named type that contains itself, is
//     written once under "$defs" and referred to with "$ref": "#/$defs/Name". A reference back to the input type
//     itself is "$ref": "#".
//   - Pointers, and the types the model marks nullable (slices, maps), accept null: "type" becomes
//     ["<type>", "null"], an "enum" gains null, and a "$ref" becomes "anyOf": [{"$ref": ...}, {"type": "null"}].
//   - A field tagged ",string" is a "string" holding the number or boolean, with a pattern that says so.
//
// # Keywords from struct tags
//
// A field's description, title, default and examples annotate its property. On a slice or array field, the
// keywords that describe a value (enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
// maxLength, pattern, format) apply to the items, as invopop/jsonschema applies them; minItems, maxItems and the
// annotations apply to the array. On a pointer field they apply to the value. Counts follow the model: -1 is
// unset; a minimum of 0 is not written, since it allows everything.
//
// The root schema has no "$schema" keyword; tools' schemas are draft 2020-12 by convention of the providers.
//
// Types the package cannot describe (channels, functions, maps with non-string keys, a named type missing from
// the package's table) are reported as an [*Error] naming the field's path.
package schema
