package agenthttp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A client's text is taken as it is sent or refused, never changed: encoding/json would put U+FFFD in place of
// invalid UTF-8 and of half a surrogate pair, and no store keeps NUL, so two different ids could land in one
// conversation and a message would be stored other than sent. checkText finds such text in a request body and
// validText in a path or query.

// textFault says why a string is not valid text, or "".
func textFault(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "holds a NUL character"
	}
	return ""
}

// checkRequestText refuses a request whose path values or query parameters are not valid text: an id that is not
// text is refused on every route, before anything looks it up.
func checkRequestText(pathValue func(string) string, query map[string][]string) error {
	for _, name := range []string{"agent", "id"} {
		if f := textFault(pathValue(name)); f != "" {
			return &httpError{status: 400, kind: ProblemBadRequest, detail: "the path's " + name + " is not valid text: it " + f}
		}
	}
	for k, vs := range query {
		if f := textFault(k); f != "" {
			return &httpError{status: 400, kind: ProblemBadRequest, detail: "a query parameter's name is not valid text: it " + f}
		}
		for _, v := range vs {
			if f := textFault(v); f != "" {
				return &httpError{status: 400, kind: ProblemBadRequest, detail: "the query parameter " + strconv.Quote(k) + " is not valid text: it " + f}
			}
		}
	}
	return nil
}

// checkText refuses a JSON body with a string (or a key) that is not valid text: invalid UTF-8, a NUL (\u0000) or
// an unpaired surrogate escape. The problem names the string's place as a JSON pointer. JSON that is not valid is
// left to the decoder to describe.
func checkText(data []byte) error {
	if utf8.Valid(data) && !bytes.Contains(data, []byte(`\u`)) {
		return nil // the common case: no escape that could hide a fault
	}
	if !json.Valid(data) {
		return nil
	}
	w := textWalker{data: data}
	ptr, fault := w.value("")
	if fault == "" {
		return nil
	}
	return &httpError{status: 400, kind: ProblemBadRequest, detail: "the body holds text that is not valid: " + fault,
		errors: []FieldError{{Pointer: ptr, Detail: fault}}}
}

// textWalker walks valid JSON, checking its strings.
type textWalker struct {
	data []byte
	i    int
}

func (w *textWalker) space() {
	for w.i < len(w.data) && (w.data[w.i] == ' ' || w.data[w.i] == '\t' || w.data[w.i] == '\n' || w.data[w.i] == '\r') {
		w.i++
	}
}

// value walks one value at ptr and returns the place and fault of the first string that is not valid text.
func (w *textWalker) value(ptr string) (string, string) {
	w.space()
	if w.i >= len(w.data) {
		return "", ""
	}
	switch w.data[w.i] {
	case '{':
		w.i++
		for {
			w.space()
			if w.i >= len(w.data) || w.data[w.i] == '}' {
				w.i++
				return "", ""
			}
			if w.data[w.i] == ',' {
				w.i++
				continue
			}
			start := w.i
			if f := w.str(); f != "" {
				return ptr, "a key " + f
			}
			var key string
			_ = json.Unmarshal(w.data[start:w.i], &key)
			w.space()
			w.i++ // ':'
			if p, f := w.value(ptr + "/" + escapePointer(key)); f != "" {
				return p, f
			}
		}
	case '[':
		w.i++
		for n := 0; ; {
			w.space()
			if w.i >= len(w.data) || w.data[w.i] == ']' {
				w.i++
				return "", ""
			}
			if w.data[w.i] == ',' {
				w.i++
				n++
				continue
			}
			if p, f := w.value(ptr + "/" + strconv.Itoa(n)); f != "" {
				return p, f
			}
		}
	case '"':
		if f := w.str(); f != "" {
			return ptr, f
		}
		return "", ""
	}
	for w.i < len(w.data) && !strings.ContainsRune(",]} \t\r\n", rune(w.data[w.i])) {
		w.i++
	}
	return "", ""
}

// str reads a string from its opening quote and says what is wrong with its text, or "".
func (w *textWalker) str() string {
	w.i++ // '"'
	fault := ""
	for w.i < len(w.data) {
		c := w.data[w.i]
		switch {
		case c == '"':
			w.i++
			return fault
		case c == '\\':
			if w.i+1 < len(w.data) && w.data[w.i+1] == 'u' {
				r := hex4(w.data, w.i+2)
				w.i += 6
				switch {
				case r == 0 && fault == "":
					fault = "holds a NUL character (\\u0000)"
				case utf16.IsSurrogate(r) && r < 0xdc00:
					if w.i+5 < len(w.data) && w.data[w.i] == '\\' && w.data[w.i+1] == 'u' {
						if lo := hex4(w.data, w.i+2); lo >= 0xdc00 && lo < 0xe000 {
							w.i += 6
							continue
						}
					}
					if fault == "" {
						fault = "holds half a surrogate pair (\\u" + strconv.FormatInt(int64(r), 16) + ")"
					}
				case utf16.IsSurrogate(r) && fault == "":
					fault = "holds half a surrogate pair (\\u" + strconv.FormatInt(int64(r), 16) + ")"
				}
				continue
			}
			w.i += 2
		case c < utf8.RuneSelf:
			w.i++
		default:
			r, n := utf8.DecodeRune(w.data[w.i:])
			if r == utf8.RuneError && n <= 1 && fault == "" {
				fault = "is not valid UTF-8"
			}
			w.i += max(n, 1)
		}
	}
	return fault
}

// hex4 reads four hexadecimal digits at i, or -1.
func hex4(b []byte, i int) rune {
	if i+4 > len(b) {
		return -1
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

// escapePointer escapes a key as a JSON pointer's token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
