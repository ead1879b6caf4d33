package storage_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storetest"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

func TestCheckJSON(t *testing.T) {
	for _, b := range storetest.BadData {
		t.Run("bad/"+b.Name, func(t *testing.T) {
			is := is.New(t)
			err := storage.CheckJSON([]byte(b.Data))
			is.True(errors.Is(err, storage.ErrInvalid)) // refused as invalid
			var je *storage.JSONError
			is.True(errors.As(err, &je))
			is.True(je.Offset >= 0 && je.Offset <= len(b.Data))
		})
	}
	for _, g := range storetest.GoodData {
		t.Run("good/"+g.Name, func(t *testing.T) {
			is.New(t).NoErr(storage.CheckJSON([]byte(g.Data)))
		})
	}
	tests := []struct {
		name, data, reason string
		offset             int
	}{
		{"NUL escape", `{"a":"x\u0000"}`, `a \u0000 escape`, 7},
		{"lone high surrogate", `["\ud83d"]`, "a \\u escape of a high surrogate without a low one after it", 2},
		{"lone low surrogate", `["\ude00"]`, "a \\u escape of a low surrogate without a high one before it", 2},
		{"invalid UTF-8", "[\"ab\xff\"]", "invalid UTF-8", 4},
		{"too deep", strings.Repeat("[", storage.MaxJSONDepth+1), "JSON nested deeper than 10100 levels", storage.MaxJSONDepth},
		{"number", `[1, 1e131072]`, "a number out of the range a store holds", 4},
		{"trailing comma", `[1,]`, `unexpected ']' in JSON`, 3},
		{"empty", ``, "unexpected end of JSON", 0},
		{"spaces only", "  \n", "unexpected end of JSON", 3},
		{"bad escape", `"\x"`, "invalid escape in a string", 2},
		{"short unicode escape", `"\u12"`, "invalid \\u escape in a string", 1},
		{"leading zero", `01`, `unexpected '1' in JSON`, 1},
		{"bare fraction", `1.`, "unexpected end of JSON", 2},
		{"bare exponent", `1e`, "unexpected end of JSON", 2},
		{"key not a string", `{1:2}`, `unexpected '1' in JSON`, 1},
		{"missing colon", `{"a" 2}`, `unexpected '2' in JSON`, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var je *storage.JSONError
			is.True(errors.As(storage.CheckJSON([]byte(tt.data)), &je))
			is.Equal(je.Reason, tt.reason)
			is.Equal(je.Offset, tt.offset)
		})
	}
}

// TestCheckJSONAgreesWithEncodingJSON runs both over inputs within
// encoding/json's depth: whatever CheckJSON accepts, json.Valid accepts, and
// what json.Valid accepts CheckJSON refuses only for a reason of its own.
func TestCheckJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range jsonCorpus {
		checkAgainstValid(t, []byte(s))
	}
}

var jsonCorpus = []string{
	`{}`, `[]`, `""`, `0`, `-1.5e+10`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b": null}], "c": "\n\t\"\\\/"} `,
	`[1,2`, `{"a":1,}`, `[01]`, `-`, `1.e5`, `"\u00e9"`, `"\uD83D\uDE00"`, `"\ud800"`, `"\u0000"`, "\"\x7f\"",
	`[{"a":[{"b":[]}]}]`, `{"a":"b"}{`, `nul`, `tru`, `[true false]`, `"a` + "\xe9" + `"`, `1E400`, `{"":""}`,
}

func checkAgainstValid(t *testing.T, data []byte) {
	t.Helper()
	err := storage.CheckJSON(data)
	valid := json.Valid(data)
	if err == nil && !valid {
		t.Fatalf("CheckJSON accepts %q, which json.Valid refuses", data)
	}
	if err != nil && valid {
		var je *storage.JSONError
		if !errors.As(err, &je) {
			t.Fatalf("CheckJSON(%q): %v is not a *JSONError", data, err)
		}
		switch {
		case strings.Contains(je.Reason, "escape"), strings.Contains(je.Reason, "UTF-8"),
			strings.Contains(je.Reason, "number"), strings.Contains(je.Reason, "nested"):
		default:
			t.Fatalf("CheckJSON refuses %q, which json.Valid accepts: %v", data, err)
		}
	}
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range jsonCorpus {
		f.Add([]byte(s))
	}
	for _, b := range storetest.BadData {
		if len(b.Data) < 200 {
			f.Add([]byte(b.Data))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstValid(t, data)
		// Sanitising never changes whether it is JSON, and leaves nothing of
		// the text rule to refuse.
		clean := storage.SanitizeJSON(data)
		if json.Valid(clean) != json.Valid(data) {
			t.Fatalf("SanitizeJSON(%q) = %q: validity changed", data, clean)
		}
		if !utf8.Valid(clean) {
			t.Fatalf("SanitizeJSON(%q) = %q: not UTF-8", data, clean)
		}
		if json.Valid(data) {
			var je *storage.JSONError
			if errors.As(storage.CheckJSON(clean), &je) && je.Kind != storage.JSONDepth {
				t.Fatalf("SanitizeJSON(%q) = %q, still refused: %v", data, clean, je)
			}
		}
		if again := storage.SanitizeJSON(clean); string(again) != string(clean) {
			t.Fatalf("SanitizeJSON is not idempotent on %q", data)
		}
	})
}

func TestSanitizeJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"clean stays", `{"a":"é😀\u00e9\ud83d\ude00"}`, `{"a":"é😀\u00e9\ud83d\ude00"}`},
		{"NUL escape", `["a\u0000b"]`, `["a\ufffdb"]`},
		{"lone high", `["\ud800x"]`, `["\ufffdx"]`},
		{"high before high", `["\ud800\ud83d\ude00"]`, `["\ufffd\ud83d\ude00"]`},
		{"lone low", `["\udc00"]`, `["\ufffd"]`},
		{"high at the end", `"\ud800`, `"\ufffd`},
		{"escaped backslash", `["\\u0000"]`, `["\\u0000"]`},
		{"invalid bytes", "[\"a\xff\xfeb\"]", "[\"a\uFFFD\uFFFDb\"]"},
		{"surrogate in UTF-8", "\"\xed\xa0\x80\"", "\"\uFFFD\uFFFD\uFFFD\""},
		{"truncated sequence", "\"\xe2\x82\"", "\"\uFFFD\uFFFD\""},
		{"numbers out of range", `{"a":[1e131072,-0.5e-16384,1.5,"1e131072"],"1e131072":0e1073741823}`,
			`{"a":["1e131072","-0.5e-16384",1.5,"1e131072"],"1e131072":"0e1073741823"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := storage.SanitizeJSON([]byte(tt.in))
			is.Equal(string(got), tt.want)
			if json.Valid([]byte(tt.in)) {
				is.NoErr(storage.CheckJSON(got)) // the result is storable
			}
		})
	}
	in := []byte(`{"clean":true}`)
	out := storage.SanitizeJSON(in)
	is.New(t).True(&out[0] == &in[0]) // nothing to replace: the same bytes, no copy
}

func TestSanitizeText(t *testing.T) {
	is := is.New(t)
	is.Equal(storage.SanitizeText("a\x00b\xffc"), "a\uFFFDb\uFFFDc")
	is.Equal(storage.SanitizeText("clean é"), "clean é")
	is.NoErr(storage.CheckText("x", storage.SanitizeText("\x00\xed\xa0\x80")))
}

func TestCheckIDsAreText(t *testing.T) {
	tests := []struct {
		name, id string
		ok       bool
	}{
		{"plain", "tenant-1", true},
		{"UTF-8", "Zürich", true},
		{"longest", strings.Repeat("é", storage.MaxIDLength/2), true},
		{"too long", strings.Repeat("a", storage.MaxIDLength+1), false},
		{"empty", "", false},
		{"NUL", "a\x00", false},
		{"invalid UTF-8", "a\xc3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			for _, err := range []error{
				storage.CheckIDs(tt.id), storage.CheckIDs("t", tt.id), storeutil.CheckDocumentKey("t", tt.id),
			} {
				is.Equal(err == nil, tt.ok)
				if !tt.ok {
					is.True(errors.Is(err, storage.ErrInvalid))
				}
			}
		})
	}
}
