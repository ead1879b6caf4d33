package agent

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeReason checks the handoff tool's decoder against encoding/json: both accept the same objects and read
// the same reason from them.
func FuzzDecodeReason(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"reason":"invoices"}`, `{"reason":null}`, `{"reason":1}`, `{"other":"x"}`,
		`{"reason":"a\n\"b\""}`, `[]`, `"x"`, `{`, `{"reason":"a"} x`, `{"reason":"a","reason":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reason, err := decodeReason(data)
		trimmed := bytes.TrimSpace(data)
		lower := bytes.ToLower(data)
		if !utf8.Valid(data) || bytes.Count(lower, []byte("reason")) != bytes.Count(data, []byte("reason")) ||
			bytes.Contains(data, []byte(`\u`)) || bytes.HasPrefix(trimmed, []byte("null")) {
			// encoding/json replaces invalid UTF-8, matches keys case-insensitively and takes null for an empty
			// object; the decoder does none of that.
			return
		}
		if len(trimmed) == 0 {
			if err != nil || reason != "" {
				t.Fatalf("empty arguments: %q, %v", reason, err)
			}
			return
		}
		var want struct {
			Reason *string `json:"reason"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		jerr := dec.Decode(&want)
		if jerr == nil {
			var rest json.RawMessage
			if dec.Decode(&rest) == nil || dec.More() {
				jerr = errHandoffTrailing
			}
		}
		if (err == nil) != (jerr == nil) {
			t.Fatalf("decodeReason(%q) err = %v; encoding/json: %v", data, err, jerr)
		}
		if err == nil && want.Reason != nil && *want.Reason != reason {
			t.Fatalf("decodeReason(%q) = %q; encoding/json: %q", data, reason, *want.Reason)
		}
	})
}

// errHandoffTrailing stands for data after the JSON value, which encoding/json's Decoder does not report itself.
var errHandoffTrailing = &json.SyntaxError{}
