package schemaprofile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// object is a JSON object that keeps its keys in order: a schema's properties are listed to the model in the
// order the code declares them, and adapting a schema must not shuffle them.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

// maxDepth bounds the nesting of a schema or of arguments read here, as the generated decoders do.
const maxDepth = 128

// parse reads one JSON value: objects as *object, arrays as []any, numbers as json.Number.
func parse(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := parseValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

func parseValue(d *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := parseValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; dup {
					return nil, fmt.Errorf("key %q given twice", k)
				}
				o.set(k, v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := parseValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// appendJSON writes v compactly.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case *object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			q, _ := json.Marshal(k) // JSON's escaping: Go's writes \x7f, which JSON refuses
			b = append(b, q...)
			b = append(b, ':')
			b = appendJSON(b, v.vals[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case string:
		s, _ := json.Marshal(v) // JSON's escaping, not Go's
		return append(b, s...)
	case json.Number:
		return append(b, v...)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	}
	s, _ := json.Marshal(v)
	return append(b, s...)
}

// text renders a JSON value for a description: strings bare, the rest as JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return string(appendJSON(nil, v))
}

// clone copies a parsed value deeply.
func clone(v any) any {
	switch v := v.(type) {
	case *object:
		c := &object{keys: append([]string(nil), v.keys...), vals: make(map[string]any, len(v.vals))}
		for k, x := range v.vals {
			c.vals[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = clone(x)
		}
		return c
	}
	return v
}
