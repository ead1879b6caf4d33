package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// object is a JSON object under construction. A schema keeps its keywords in a fixed order (see rank) whatever
// order they were set in; a "properties" or "$defs" object keeps the order its members were added in.
type object struct {
	members []member
	// ordered reports a keyword object, written in rank order.
	ordered bool
}

// member holds one key and its value: raw JSON, an *object, or a []*object.
type member struct {
	key string
	val any
}

func newSchema() *object { return &object{ordered: true} }

func newMap() *object { return &object{} }

// set stores v under key, replacing an earlier value.
func (o *object) set(key string, v any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = v
			return
		}
	}
	o.members = append(o.members, member{key, v})
}

func (o *object) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

func (o *object) has(key string) bool {
	_, ok := o.get(key)
	return ok
}

func (o *object) del(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// keywordOrder is the order keywords are written in: what a schema is first, then what it allows, then what
// it holds, and its definitions last.
var keywordOrder = []string{
	"$ref", "anyOf", "type", "title", "description", "format", "contentEncoding", "enum", "default",
	"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
	"items", "minItems", "maxItems", "properties", "required", "additionalProperties", "examples", "$defs",
}

func rank(key string) int {
	if i := slices.Index(keywordOrder, key); i >= 0 {
		return i
	}
	return len(keywordOrder)
}

// appendTo writes o as compact JSON.
func (o *object) appendTo(b []byte) []byte {
	ms := o.members
	if o.ordered {
		ms = slices.Clone(ms)
		slices.SortStableFunc(ms, func(x, y member) int { return rank(x.key) - rank(y.key) })
	}
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		b = appendValue(b, m.val)
	}
	return append(b, '}')
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case []byte:
		return append(b, v...)
	case *object:
		return v.appendTo(b)
	case []*object:
		b = append(b, '[')
		for i, o := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.appendTo(b)
		}
		return append(b, ']')
	}
	panic(fmt.Sprintf("schema: unexpected member value %T", v))
}

// str returns s as a JSON string.
func str(s string) []byte { return appendString(nil, s) }

// strs returns a JSON array of strings.
func strs(ss []string) []byte {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func num(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func unum(n uint64) []byte { return strconv.AppendUint(nil, n, 10) }

// appendString quotes s as JSON without escaping HTML characters, which descriptions use freely and which
// schemas never carry into HTML. Invalid UTF-8 becomes U+FFFD, as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but not valid in JavaScript string literals: escape them as encoding/json does.
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// literal checks that s is one JSON value and returns it compacted.
func literal(s string) ([]byte, error) {
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("%q is not a JSON value", s)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// number checks that s is one JSON number and returns it compacted.
func number(s string) ([]byte, error) {
	b, err := literal(s)
	if err != nil {
		return nil, err
	}
	if c := b[0]; c != '-' && (c < '0' || c > '9') {
		return nil, fmt.Errorf("%s is not a number", b)
	}
	return b, nil
}

// literals returns a JSON array of the JSON literals ls.
func literals(ls []string) ([]byte, error) {
	b := []byte{'['}
	for i, l := range ls {
		v, err := literal(l)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']'), nil
}
