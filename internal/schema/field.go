package schema

import (
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/internal/model"
)

// Patterns of the strings a ",string" field holds: what encoding/json parses back into the Go type.
const (
	intPattern   = `^-?(0|[1-9][0-9]*)$`
	uintPattern  = `^(0|[1-9][0-9]*)$`
	floatPattern = `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`
)

// field writes the schema of one struct field: its type's schema with the tag's keywords and the field's
// description.
func (g *gen) field(f *model.Field, path string) (*object, error) {
	fail := func(format string, args ...any) error {
		return &Error{Path: path, GoType: typeName(f.Type), Reason: fmt.Sprintf(format, args...)}
	}
	s, nullable, err := g.value(f.Type, path)
	if err != nil {
		return nil, err
	}
	rt, key := g.underlying(f.Type)
	if f.Stringify && rt != nil {
		if s, err = stringified(s, rt.Kind); err != nil {
			return nil, fail("%v", err)
		}
	}

	// Keywords about a value go to the items of an array, as invopop/jsonschema puts them.
	c := f.Constraints
	target := s
	if items, ok := s.get("items"); ok && rt != nil && (rt.Kind == model.Slice || rt.Kind == model.Array) {
		target = items.(*object)
	}
	if len(c.Enum) > 0 {
		enum, err := literals(c.Enum)
		if err != nil {
			return nil, fail("enum: %v", err)
		}
		target.set("enum", enum)
		if acceptsNull(target) {
			target.set("enum", withNull(enum))
		}
	}
	for _, kw := range []struct {
		name, val string
	}{
		{"minimum", c.Minimum}, {"maximum", c.Maximum},
		{"exclusiveMinimum", c.ExclusiveMinimum}, {"exclusiveMaximum", c.ExclusiveMaximum},
	} {
		if kw.val == "" {
			continue
		}
		if f.Stringify {
			return nil, fail("%s cannot apply to a number the ,string option writes as a string", kw.name)
		}
		n, err := number(kw.val)
		if err != nil {
			return nil, fail("%s: %v", kw.name, err)
		}
		target.set(kw.name, n)
	}
	if c.MinLength > 0 {
		target.set("minLength", num(int64(c.MinLength)))
	}
	if c.MaxLength >= 0 {
		target.set("maxLength", num(int64(c.MaxLength)))
	}
	if c.Pattern != "" {
		target.set("pattern", str(c.Pattern))
	}
	if c.Format != "" {
		target.set("format", str(c.Format))
	}
	if c.MinItems > 0 {
		s.set("minItems", num(int64(c.MinItems)))
	}
	if c.MaxItems >= 0 {
		s.set("maxItems", num(int64(c.MaxItems)))
	}

	if nullable {
		s = widen(s)
	}

	if c.Title != "" {
		s.set("title", str(c.Title))
	}
	desc := f.Description
	if desc == "" && rt != nil && key != "" && key != g.rootKey && !g.isDef(key) {
		// An inline named type, such as an enumerated string type, says what it is in its doc comment.
		desc = rt.Doc
	}
	if desc != "" {
		s.set("description", str(desc))
	}
	if c.Default != "" {
		d, err := literal(c.Default)
		if err != nil {
			return nil, fail("default: %v", err)
		}
		s.set("default", d)
	}
	if len(c.Examples) > 0 {
		ex, err := literals(c.Examples)
		if err != nil {
			return nil, fail("examples: %v", err)
		}
		s.set("examples", ex)
	}
	return s, nil
}

// underlying resolves t through Named references and pointers to the type its values have, and that type's key.
func (g *gen) underlying(t *model.Type) (*model.Type, string) {
	for range 16 {
		rt, key, err := g.resolve(t, "")
		if err != nil {
			return nil, ""
		}
		if rt.Kind != model.Pointer || rt.Elem == nil {
			return rt, key
		}
		t = rt.Elem
	}
	return nil, ""
}

// stringified is the schema of a field with the ",string" option, which encoding/json writes as a string holding
// the value. It applies to numbers and booleans; other kinds ignore it, except strings, which it would quote
// twice.
func stringified(s *object, k model.Kind) (*object, error) {
	out := newSchema()
	switch k {
	case model.Int:
		out.set("type", str("string"))
		out.set("pattern", str(intPattern))
	case model.Uint:
		out.set("type", str("string"))
		out.set("pattern", str(uintPattern))
	case model.Float:
		out.set("type", str("string"))
		out.set("pattern", str(floatPattern))
	case model.Bool:
		out.set("type", str("string"))
		out.set("enum", strs([]string{"true", "false"}))
	case model.String:
		return nil, fmt.Errorf("the ,string option on a string field is not supported: drop it")
	default:
		return s, nil
	}
	return out, nil
}

// widen makes s accept null as well.
func widen(s *object) *object {
	if s.has("anyOf") {
		return s // already widened
	}
	if s.has("$ref") {
		null := newSchema()
		null.set("type", str("null"))
		w := newSchema()
		w.set("anyOf", []*object{s, null})
		return w
	}
	t, ok := s.get("type")
	if !ok {
		return s // {} accepts null already
	}
	if raw := t.([]byte); len(raw) > 0 && raw[0] == '"' {
		s.set("type", append(append([]byte{'['}, raw...), `,"null"]`...))
	}
	if enum, ok := s.get("enum"); ok {
		s.set("enum", withNull(enum.([]byte)))
	}
	return s
}

// acceptsNull reports whether the schema's type lists null.
func acceptsNull(s *object) bool {
	t, ok := s.get("type")
	if !ok {
		return false
	}
	var types []string
	if json.Unmarshal(t.([]byte), &types) != nil {
		return false
	}
	for _, x := range types {
		if x == "null" {
			return true
		}
	}
	return false
}

// withNull appends null to a JSON array of literals that lacks it.
func withNull(enum []byte) []byte {
	var vals []json.RawMessage
	if json.Unmarshal(enum, &vals) != nil {
		return enum
	}
	for _, v := range vals {
		if string(v) == "null" {
			return enum
		}
	}
	out := append([]byte(nil), enum[:len(enum)-1]...)
	if len(vals) > 0 {
		out = append(out, ',')
	}
	return append(out, "null]"...)
}
