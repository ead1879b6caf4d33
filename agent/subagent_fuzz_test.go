package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeTask checks the sub-agent tool's decoder against encoding/json: both accept the same objects and read
// the same task and context from them.
func FuzzDecodeTask(f *testing.F) {
	for _, s := range []string{
		`{"task":"find ticket 7"}`,
		`{"task":"a","context":"b"}`,
		`{"task":"a","context":null}`,
		`{"context":"only"}`,
		`{"task":""}`,
		`{"task":"a","other":1}`,
		`{"task":"\u00e9\n\"q\""}`,
		`{"task":1}`,
		`[]`, `null`, `{`, `{"task":"a"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		task, extra, err := decodeTask(data)
		var want struct {
			Task    *string `json:"task"`
			Context *string `json:"context"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		jerr := dec.Decode(&want)
		if jerr == nil && dec.More() {
			jerr = errTrailing
		}
		if jerr == nil {
			var rest json.RawMessage
			if dec.Decode(&rest) == nil {
				jerr = errTrailing
			}
		}
		lower := bytes.ToLower(data)
		folded := bytes.Count(lower, []byte("task")) != bytes.Count(data, []byte("task")) ||
			bytes.Count(lower, []byte("context")) != bytes.Count(data, []byte("context")) || bytes.Contains(data, []byte(`\u`))
		if !utf8.Valid(data) || folded {
			// encoding/json replaces invalid UTF-8 and matches keys case-insensitively; the decoder does neither.
			return
		}
		wantOK := jerr == nil && want.Task != nil && strings.TrimSpace(*want.Task) != ""
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("null")) {
			wantOK = false
		}
		if (err == nil) != wantOK {
			t.Fatalf("decodeTask(%q) err = %v; encoding/json: %v, task %v", data, err, jerr, want.Task)
		}
		if err != nil {
			return
		}
		if task != *want.Task {
			t.Fatalf("decodeTask(%q) task = %q, encoding/json %q", data, task, *want.Task)
		}
		if want.Context != nil && extra != *want.Context || want.Context == nil && extra != "" {
			t.Fatalf("decodeTask(%q) context = %q, encoding/json %v", data, extra, want.Context)
		}
	})
}

var errTrailing = &json.SyntaxError{}
