package schemaprofile

import (
	"maps"
	"slices"
	"strings"
)

// AnthropicStrict is the subset of JSON Schema Claude's structured outputs take: the schema of a JSON answer
// (output_config.format) and of a strict tool. Claude decodes against a grammar built from the schema, so every
// object must forbid additional properties: the profile sets additionalProperties to false, and an object
// whose keys are not declared (a Go map) is an [*Error]. Optional properties stay optional. The keywords the
// grammar has no room for (numeric bounds, string lengths, item counts past a first, unique items, defaults,
// formats outside the supported ones, and patterns with a lookaround, a back-reference or a word boundary) move
// into descriptions, as Anthropic's own SDKs move them. A recursive schema, a tuple (prefixItems), allOf, not,
// conditionals and a reference outside the schema are [*Error]s.
var AnthropicStrict = &Profile{Name: "anthropic-strict", Provider: "anthropic", adapt: adaptAnthropicStrict}

// anthropicStrictKeep are the keywords Claude's structured outputs take.
var anthropicStrictKeep = []string{"$ref", "$defs", "definitions", "type", "anyOf", "description", "title", "enum", "const",
	"properties", "additionalProperties", "required", "items", "minItems", "format", "pattern"}

// anthropicFormats are the string formats Claude's structured outputs take.
var anthropicFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}

func adaptAnthropicStrict(a *adapter, root *object) error {
	if ts := types(root); len(ts) > 0 && !slices.Equal(ts, []string{"object"}) {
		return a.fail("", "Claude's structured outputs want an object at the top, not %s", strings.Join(ts, " or "))
	}
	cyclic := slices.Sorted(maps.Keys(cyclicDefs(root)))
	for _, name := range cyclic { // "#" sorts first: the whole schema, then its definitions by name
		field := "(the whole schema)"
		if name != "#" {
			field = "$defs." + name
		}
		return a.fail(field, "a recursive schema, which Claude's structured outputs cannot take")
	}
	for _, dk := range []string{"$defs", "definitions"} {
		defs, ok := root.vals[dk].(*object)
		if !ok {
			continue
		}
		for _, name := range defs.keys {
			s, ok := defs.vals[name].(*object)
			if !ok {
				return a.fail(join(dk, name), "a definition that is not a schema object")
			}
			if err := anthropicStrictNode(a, s, join(dk, name), 1); err != nil {
				return err
			}
		}
	}
	return anthropicStrictNode(a, root, "", 0)
}

func anthropicStrictNode(a *adapter, s *object, path string, depth int) error {
	if depth > maxDepth {
		return a.fail(path, "nested too deeply")
	}
	for _, k := range inexpressible {
		if _, ok := s.get(k); ok {
			return a.fail(path, "Claude's structured outputs have no %s", k)
		}
	}
	if _, ok := s.get("prefixItems"); ok {
		return a.fail(path, "Claude's structured outputs have no tuples (prefixItems)")
	}
	for _, k := range dropped {
		s.del(k)
	}
	if v, ok := s.get("oneOf"); ok { // the decoder still holds the value to exactly one branch
		s.del("oneOf")
		s.set("anyOf", v)
	}
	if f, ok := s.vals["format"].(string); ok && !slices.Contains(anthropicFormats, f) {
		moveToDescription(s, "format")
	}
	if p, ok := s.vals["pattern"].(string); ok && !claudeRegex(p) {
		moveToDescription(s, "pattern")
	}
	if n, ok := s.vals["minItems"]; ok && text(n) != "0" && text(n) != "1" {
		moveToDescription(s, "minItems")
	}
	for _, k := range keysOf(s) {
		switch {
		case strings.HasPrefix(k, "x-"):
			s.del(k)
		case !slices.Contains(anthropicStrictKeep, k):
			moveToDescription(s, k)
			s.del(k)
		}
	}
	if ref, ok := s.vals["$ref"].(string); ok {
		if !strings.HasPrefix(ref, "#") {
			return a.fail(path, "a reference outside the schema (%s)", ref)
		}
		if len(s.keys) > 1 { // nothing may stand beside a $ref: the rest goes on a wrapper
			inner := newObject()
			inner.set("$ref", ref)
			s.del("$ref")
			s.set("anyOf", []any{inner})
		}
		return nil
	}
	if branches, ok := s.vals["anyOf"].([]any); ok {
		for _, b := range branches {
			bs, ok := b.(*object)
			if !ok {
				return a.fail(path, "an anyOf branch that is not a schema object")
			}
			if err := anthropicStrictNode(a, bs, path, depth+1); err != nil {
				return err
			}
		}
	}
	props, hasProps := s.vals["properties"].(*object)
	if slices.Contains(types(s), "object") || hasProps {
		switch ap := s.vals["additionalProperties"].(type) {
		case *object:
			if len(ap.keys) > 0 || !hasProps {
				return a.fail(path, "an object whose keys are not declared (a map), which Claude's structured outputs cannot take")
			}
		case bool:
			if ap && !hasProps {
				return a.fail(path, "an object whose keys are not declared (a map), which Claude's structured outputs cannot take")
			}
		}
		if !hasProps {
			props = newObject()
			s.set("properties", props)
		}
		s.set("additionalProperties", false)
		for _, name := range props.keys {
			ps, ok := props.vals[name].(*object)
			if !ok {
				return a.fail(join(path, name), "a property whose schema is not an object")
			}
			if err := anthropicStrictNode(a, ps, join(path, name), depth+1); err != nil {
				return err
			}
		}
	}
	if items, ok := s.vals["items"].(*object); ok {
		if err := anthropicStrictNode(a, items, path+"[]", depth+1); err != nil {
			return err
		}
	}
	return nil
}

// hasLookaround reports whether a regular expression has a lookahead or a lookbehind, outside an escape.
func hasLookaround(p string) bool {
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\':
			i++
		case strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
			strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!"):
			return true
		}
	}
	return false
}

// claudeRegex reports whether Claude's structured outputs take a pattern: no lookaround, no back-reference and
// no word boundary.
func claudeRegex(p string) bool {
	if hasLookaround(p) {
		return false
	}
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '\\' {
			continue
		}
		switch c := p[i+1]; {
		case c >= '1' && c <= '9', c == 'k', c == 'b', c == 'B':
			return false
		}
		i++
	}
	return true
}
