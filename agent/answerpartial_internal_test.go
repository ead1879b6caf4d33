package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// partials feeds text to a partialObject in pieces of n bytes and returns what it gave.
func partials(text string, n int) []string {
	var p partialObject
	var out []string
	for len(text) > 0 {
		k := min(n, len(text))
		if v := p.add(text[:k]); v != nil {
			out = append(out, string(v))
		}
		text = text[k:]
	}
	return out
}

func TestPartialObject(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"members", `{"a":1,"b":"x,y}","c":[1,{"d":2}],"e":{"f":[]}}`,
			[]string{`{"a":1}`, `{"a":1,"b":"x,y}"}`, `{"a":1,"b":"x,y}","c":[1,{"d":2}]}`, `{"a":1,"b":"x,y}","c":[1,{"d":2}],"e":{"f":[]}}`}},
		{"escapes", `{"a":"q\"},","b":true}`, []string{`{"a":"q\"},"}`, `{"a":"q\"},","b":true}`}},
		{"fence", "Here:\n```json\n{\"a\": 1 , \"b\": null}\n```", []string{`{"a": 1 }`, `{"a": 1 , "b": null}`}},
		{"empty", `{}`, []string{`{}`}},
		{"not an object", `[1,2,3]`, nil},
		{"broken", `{"a":1,,"b":2}`, []string{`{"a":1}`}},
		{"unfinished", `{"a":1,"b":[1,2`, []string{`{"a":1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(partials(tt.text, len(tt.text)+1), lastOf(tt.want)) // whole: only the last
			is.Equal(partials(tt.text, 1), tt.want)                      // a byte at a time: each member
		})
	}
}

func lastOf(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1:]
}

// FuzzPartialObject holds partialObject to its promises, however the text is split: every value it gives is a
// JSON object; each keeps the members of the one before it, as written; it never gives more than the text holds;
// and for text that is one JSON object, the last value is the object.
func FuzzPartialObject(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":"x"}`, `{"a":{"b":[1,2,{"c":"}"}]},"d":"\\\""}`, " {\"a\":true}", `{"a":1,,}`, `{`, `}`, `{"a":"`, "```\n{\"x\":[]}\n```"} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		got := partials(text, int(n%16)+1)
		prev := ""
		for _, v := range got {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				t.Fatalf("%q gave %q, not an object: %v", text, v, err)
			}
			if prev != "" && !strings.HasPrefix(v, prev[:len(prev)-1]) {
				t.Fatalf("%q gave %q after %q: a member changed", text, v, prev)
			}
			if !strings.Contains(text, strings.TrimSuffix(v, "}")) {
				t.Fatalf("%q gave %q, which it does not hold", text, v)
			}
			prev = v
		}
		// Split or whole, the text gives the same last value.
		whole := partials(text, len(text)+1)
		if !slices.Equal(whole, lastOf(got)) {
			t.Fatalf("%q: split gave %q last, whole %q", text, lastOf(got), whole)
		}
		trimmed := bytes.TrimSpace([]byte(text))
		if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
			if len(got) == 0 || got[len(got)-1] != string(trimmed) {
				t.Fatalf("%q: the last value is %q, not the object", text, got)
			}
		}
	})
}
