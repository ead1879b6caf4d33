package agenthttp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCheckText checks that checkText ends on any input and lets through only JSON whose strings encoding/json
// decodes unchanged: valid UTF-8 without NUL, and no U+FFFD the input did not spell.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{`{"text":"hi"}`, `{"a":["\ud83d\ude00",1,{"b":"\u0000"}]}`, "{\"id\":\"room-\xff\"}",
		`["\ud800"]`, `{"\udc00":true}`, `"\ud83d\u0041"`, `{"x":"\\u0000"}`, `[1,2,"\ufffd"]`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkText(data)
		if err != nil || !json.Valid(data) {
			return
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		spelled := strings.Contains(string(data), "\ufffd") || strings.Contains(strings.ToLower(string(data)), `\ufffd`)
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 || (!spelled && strings.ContainsRune(v, utf8.RuneError)) {
					t.Fatalf("checkText let %q through as %q", data, v)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					walk(k)
					walk(x)
				}
			}
		}
		walk(v)
	})
}
