package providertest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/agent/internal/jsondiff"
)

// An Ignore is a place in a request's JSON that the replay comparison leaves out of both the recorded request
// and the one the client sent, and why. Keep the list short: each entry is a thing the suite no longer checks.
type Ignore struct {
	// Path names the place: object keys separated by dots, "[]" for every element of an array, "[n]" for the
	// n-th (from 0), "[key=value]" for the elements whose key holds that string. "tools[].strict" is every tool's strict flag;
	// "input[type=reasoning]" every reasoning item of a Responses input.
	Path string
	// Why says why the comparison may leave it out: typically a field the recording project sent that the
	// library sends only when asked, or an id one library makes up where another sends none.
	Why string
}

type segment struct {
	key         string // an object's key; "" for an array step
	all         bool   // every element
	index       int    // the element at index+1, when not zero
	field, want string // the elements whose field holds want
}

func parsePath(p string) ([]segment, error) {
	var out []segment
	for _, part := range strings.Split(p, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			out = append(out, segment{key: key})
		}
		for rest != "" {
			inner, after, ok := strings.Cut(rest, "]")
			if !ok {
				return nil, fmt.Errorf("ignore path %q: unclosed [", p)
			}
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				out = append(out, segment{index: n + 1})
			} else if inner == "" {
				out = append(out, segment{all: true})
			} else {
				f, w, ok := strings.Cut(inner, "=")
				if !ok {
					return nil, fmt.Errorf("ignore path %q: want [], [n] or [key=value]", p)
				}
				out = append(out, segment{field: f, want: w})
			}
			rest = strings.TrimPrefix(after, "[")
			if after != "" && !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("ignore path %q: text after ]", p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty ignore path")
	}
	return out, nil
}

// remove deletes the places path names from v and returns v.
func remove(v any, path []segment) any {
	if len(path) == 0 {
		return v
	}
	s, rest := path[0], path[1:]
	switch {
	case s.key != "":
		o, ok := v.(map[string]any)
		if !ok {
			return v
		}
		if len(rest) == 0 {
			delete(o, s.key)
			return o
		}
		if e, ok := o[s.key]; ok {
			o[s.key] = remove(e, rest)
		}
		return o
	default:
		l, ok := v.([]any)
		if !ok {
			return v
		}
		out := l[:0:0]
		for i, e := range l {
			match := s.all || (s.index > 0 && i == s.index-1) || (s.index == 0 && s.field != "" && str(obj(e)[s.field]) == s.want)
			switch {
			case match && len(rest) == 0:
				continue // the element itself is left out
			case match:
				e = remove(e, rest)
			}
			out = append(out, e)
		}
		return out
	}
}

// numbers turns every number into a float64, so that 1 and 1.0 compare equal.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		f, err := x.Float64()
		if err == nil {
			return f
		}
	}
	return v
}

// A Difference is one place where the request the client sent differs from the recorded one.
type Difference struct {
	// Path is the JSON path, such as messages[1].content[0].signature.
	Path string
	// Recorded and Sent are the values there, as JSON; "" when absent.
	Recorded, Sent string
}

func (d Difference) String() string {
	or := func(s string) string {
		if s == "" {
			return "(absent)"
		}
		return s
	}
	return fmt.Sprintf("%s: recorded %s, sent %s", d.Path, or(d.Recorded), or(d.Sent))
}

const maxDifferences = 25

// diff lists where a (recorded) and b (sent) differ under path.
func diff(path string, a, b any, out []Difference) []Difference {
	for _, d := range jsondiff.Diff(path, a, b, maxDifferences-len(out), show, nil) {
		out = append(out, Difference{Path: d.Path, Recorded: d.A, Sent: d.B})
	}
	return out
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// canonical rewrites the forms a wire format accepts for one thing into one of them, in place: a string content
// as its one text part, base64 in one alphabet, a function's result under one key. These are equivalences of the
// API, not differences the comparison leaves out.
func (w Wire) canonical(v any) any {
	doc := obj(v)
	if doc == nil {
		return v
	}
	textPart := func(t, s string) []any { return []any{map[string]any{"type": t, "text": s}} }
	if doc["stream"] == false {
		delete(doc, "stream") // the API's default
	}
	switch w {
	case Anthropic:
		if tc := obj(doc["tool_choice"]); tc != nil && tc["disable_parallel_tool_use"] == false {
			delete(tc, "disable_parallel_tool_use") // the API's default
		}
		if s, ok := doc["system"].(string); ok {
			doc["system"] = textPart("text", s)
		}
		for _, m := range list(doc["messages"]) {
			m := obj(m)
			if s, ok := m["content"].(string); ok {
				m["content"] = textPart("text", s)
			}
			for _, b := range list(m["content"]) {
				b := obj(b)
				if s, ok := b["content"].(string); ok && str(b["type"]) == "tool_result" {
					b["content"] = textPart("text", s)
				}
				if str(b["type"]) == "tool_result" && b["is_error"] == false {
					delete(b, "is_error") // the API's default
				}
			}
		}
		for _, t := range list(doc["tools"]) {
			if t := obj(t); t != nil && (t["description"] == nil || t["description"] == "") {
				delete(t, "description") // null or empty is no description
			}
		}
	case Responses:
		if doc["parallel_tool_calls"] == true {
			delete(doc, "parallel_tool_calls") // the API's default
		}
		if f := obj(obj(doc["text"])["format"]); f != nil && f["strict"] == false {
			delete(f, "strict") // the API's default
		}
		for _, t := range list(doc["tools"]) {
			if t := obj(t); t != nil && (t["description"] == nil || t["description"] == "") {
				delete(t, "description") // null or empty is no description
			}
		}
		if s, ok := doc["input"].(string); ok {
			doc["input"] = []any{map[string]any{"role": "user", "content": s}}
		}
		// Instructions given as the input's first message, a developer's or the system's, are the instructions
		// field: the API reads both as the model's instructions for this response.
		if in := list(doc["input"]); len(in) > 0 && doc["instructions"] == nil {
			first := obj(in[0])
			if r := str(first["role"]); (r == "developer" || r == "system") && (first["type"] == nil || first["type"] == "message") {
				text := str(first["content"])
				for _, p := range list(first["content"]) {
					text += str(obj(p)["text"])
				}
				doc["instructions"] = text
				doc["input"] = in[1:]
			}
		}
		for _, it := range list(doc["input"]) {
			it := obj(it)
			if it["type"] == nil && it["role"] != nil {
				it["type"] = "message"
			}
			if s, ok := it["content"].(string); ok && str(it["type"]) == "message" {
				t := "input_text"
				if str(it["role"]) == "assistant" {
					t = "output_text"
				}
				it["content"] = textPart(t, s)
			}
		}
	case Chat:
		if v, ok := doc["max_tokens"]; ok && doc["max_completion_tokens"] == nil {
			doc["max_completion_tokens"] = v // the name that replaced max_tokens, which reasoning models require
			delete(doc, "max_tokens")
		}
		if doc["parallel_tool_calls"] == true {
			delete(doc, "parallel_tool_calls") // the API's default
		}
		for _, m := range list(doc["messages"]) {
			m := obj(m)
			if str(m["role"]) == "developer" {
				m["role"] = "system" // what the API calls the instructions for models before o1
			}
			if s, ok := m["content"].(string); ok {
				m["content"] = textPart("text", s)
			}
		}
		for _, t := range list(doc["tools"]) {
			if f := obj(obj(t)["function"]); f != nil {
				if f["strict"] == false {
					delete(f, "strict") // the API's default
				}
				if f["description"] == nil || f["description"] == "" {
					delete(f, "description") // null or empty is no description
				}
			}
		}
		if js := obj(obj(doc["response_format"])["json_schema"]); js != nil && js["strict"] == false {
			delete(js, "strict") // the API's default
		}
	case Gemini:
		if fc := obj(obj(doc["toolConfig"])["functionCallingConfig"]); len(fc) == 1 && fc["mode"] == "AUTO" {
			delete(doc, "toolConfig") // the API's default
		}
		for _, t := range list(doc["tools"]) {
			for _, d := range list(obj(t)["functionDeclarations"]) {
				d := obj(d)
				if d["description"] == "" {
					delete(d, "description")
				}
				// A schema in the API's OpenAPI subset (upper-case types) or as JSON Schema, under its JSON or its
				// proto field name, is one schema.
				for _, k := range []string{"parameters", "parameters_json_schema"} {
					if v, ok := d[k]; ok {
						delete(d, k)
						d["parametersJsonSchema"] = lowerTypes(v)
					}
				}
			}
		}
		for _, c := range list(doc["contents"]) {
			for _, p := range list(obj(c)["parts"]) {
				p := obj(p)
				if s := str(p["thoughtSignature"]); s != "" {
					p["thoughtSignature"] = canonicalBase64(s)
				}
				if fc := obj(p["functionCall"]); fc != nil && fc["args"] == nil {
					fc["args"] = map[string]any{}
				}
				if d := obj(p["inlineData"]); d != nil {
					d["data"] = canonicalBase64(str(d["data"]))
				}
				if fr := obj(p["functionResponse"]); fr != nil {
					if resp := obj(fr["response"]); resp != nil {
						if _, isErr := resp["error"]; !isErr || len(resp) != 1 {
							fr["response"] = map[string]any{"output": unwrapResult(resp)}
						}
					}
				}
			}
		}
	}
	return doc
}

// lowerTypes rewrites the OpenAPI subset's upper-case type names ("STRING") as JSON Schema's.
func lowerTypes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "type" {
				x[k] = strings.ToLower(s)
				continue
			}
			x[k] = lowerTypes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = lowerTypes(e)
		}
	}
	return v
}

// compareRequests returns where sent differs from recorded, once both are put in canonical form and the
// ignored places are left out.
func compareRequests(w Wire, recorded, sent []byte, ignores []Ignore) ([]Difference, error) {
	a, err := decodeJSON(recorded)
	if err != nil {
		return nil, fmt.Errorf("the recorded request is not JSON: %w", err)
	}
	b, err := decodeJSON(sent)
	if err != nil {
		return nil, fmt.Errorf("the request sent is not JSON: %w", err)
	}
	a, b = numbers(w.canonical(a)), numbers(w.canonical(b))
	for _, ig := range ignores {
		p, err := parsePath(ig.Path)
		if err != nil {
			return nil, err
		}
		a, b = remove(a, p), remove(b, p)
	}
	return diff("", a, b, nil), nil
}
