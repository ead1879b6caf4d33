package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/agent/internal/jsondiff"
)

// Redacted replaces the value of every redacted JSON field.
const Redacted = "[redacted]"

// decode reads a JSON body with its numbers as written; ok is false for a body that is not one JSON value.
func decode(body []byte) (v any, ok bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false // more than one value
	}
	return v, true
}

// redact replaces the values of the fields named in names, at any depth, and reports whether it replaced one.
func redact(v any, names map[string]bool) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		changed := false
		for k, e := range x {
			if names[k] {
				x[k] = Redacted
				changed = true
				continue
			}
			var c bool
			x[k], c = redact(e, names)
			changed = changed || c
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			var c bool
			x[i], c = redact(e, names)
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// redactBody redacts a JSON body, or each JSON data line of a server-sent event stream; any other body is
// returned as it is.
func redactBody(body []byte, names map[string]bool) []byte {
	if len(names) == 0 || len(body) == 0 {
		return body
	}
	if v, ok := decode(body); ok {
		if v, changed := redact(v, names); changed {
			b, err := json.Marshal(v)
			if err == nil {
				return b
			}
		}
		return body
	}
	lines := strings.SplitAfter(string(body), "\n")
	changed := false
	for i, line := range lines {
		rest, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		payload := strings.TrimSpace(rest)
		v, ok := decode([]byte(payload))
		if !ok {
			continue
		}
		v, c := redact(v, names)
		if !c {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		lines[i] = "data: " + string(b) + strings.TrimPrefix(rest, strings.TrimRight(rest, "\r\n"))
		changed = true
	}
	if !changed {
		return body
	}
	return []byte(strings.Join(lines, ""))
}

// A Difference is one place where a request differs from the recorded one it was compared with.
type Difference struct {
	// Field names the place: "method", "url", or "body" followed by a JSON path such as
	// body.messages[1].content.
	Field string
	// Recorded and Got are the values there, as JSON (or text for a body that is not JSON); "" when absent.
	Recorded, Got string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: recorded %s, got %s", d.Field, orAbsent(d.Recorded), orAbsent(d.Got))
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// maxDifferences bounds the differences one comparison lists.
const maxDifferences = 20

// diffJSON appends the differences between a (recorded) and b (got) under path.
func diffJSON(path string, a, b any, out []Difference) []Difference {
	for _, d := range jsondiff.Diff(path, a, b, maxDifferences-len(out), show, nil) {
		out = append(out, Difference{Field: d.Path, Recorded: d.A, Got: d.B})
	}
	return out
}

// show writes a value as compact JSON, cut when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

func clip(s string) string {
	const limit = 200
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
