package tooljson

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// htmlSafe marks the bytes encoding/json writes as they are by default:
// printable ASCII other than '"', '\\', '<', '>' and '&'. It covers every
// byte value so that indexing it needs no bounds check.
var htmlSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as a JSON string, byte for byte as json.Marshal
// writes it: <, > and & as \u003c, \u003e, \u0026; U+2028 and U+2029
// escaped; each invalid UTF-8 byte as \ufffd.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		// One test for the common byte.
		if htmlSafe[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendBytes appends p as json.Marshal writes a []byte: a string of standard
// padded base64, or null for a nil slice.
func AppendBytes(b []byte, p []byte) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p)
	return append(b, '"')
}

// AppendInt appends v in decimal.
func AppendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendUint appends v in decimal.
func AppendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// FloatOK reports whether v can be written as JSON: it is neither NaN nor
// infinite. Generated code checks it and reports an error otherwise, as
// json.Marshal does.
func FloatOK(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// AppendFloat appends v, of the given bit size (32 or 64), as json.Marshal
// writes it: the shortest representation that reads back to the same value,
// in exponent form only below 1e-6 or from 1e21 on. NaN and infinities, which
// JSON cannot hold, are written as null; check FloatOK first.
func AppendFloat(b []byte, v float64, bits int) []byte {
	if !FloatOK(v) {
		return append(b, "null"...)
	}
	if bits != 32 {
		bits = 64
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 {
		// A float32 is compared as float32 so the cut-offs fall where they do
		// for json.Marshal.
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, format, -1, bits)
	if format == 'e' {
		// Two-digit negative exponents lose their zero: 1e-07 becomes 1e-7.
		n := len(b)
		if n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// TimeOK reports whether t can be written as RFC 3339: its year is in
// [0, 9999] and its zone offset within a day. json.Marshal fails otherwise;
// generated code checks it and reports an error.
func TimeOK(t time.Time) bool {
	if _, _, _, ok := rfc3339Local(t); ok {
		return true
	}
	var buf [64]byte
	_, err := t.AppendText(buf[:0])
	return err == nil
}

// AppendTime appends t as time.Time.MarshalJSON writes it: RFC 3339 with
// nanoseconds as needed, quoted. A time that fails TimeOK is written in the
// same layout without the range checks.
func AppendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	if out, ok := appendRFC3339(b, t); ok {
		b = out
	} else if out, err := t.AppendText(b); err == nil {
		b = out
	} else {
		b = t.AppendFormat(b, time.RFC3339Nano)
	}
	return append(b, '"')
}

// RawOK reports whether raw can be written by AppendRaw: it is nil or holds
// exactly one valid JSON value.
func RawOK(raw []byte) bool {
	if raw == nil {
		return true
	}
	d := NewDecoder(raw)
	d.Skip()
	d.End()
	return d.err == nil
}

// AppendRaw appends raw (a json.RawMessage) as json.Marshal writes it: null
// for nil, otherwise compacted, with <, >, &, U+2028 and U+2029 escaped. Input
// that is not one valid JSON value, which json.Marshal rejects, is written as
// null; check RawOK first.
func AppendRaw(b []byte, raw []byte) []byte {
	if raw == nil || !RawOK(raw) {
		return append(b, "null"...)
	}
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b = append(b, raw[start:i]...)
			start = i + 1
		}
	}
	return append(b, raw[start:]...)
}

// AppendFallback appends v as json.Marshal writes it, for the rare types
// generated code does not handle itself.
func AppendFallback(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return b, fmt.Errorf("tooljson: encode %T: %w", v, err)
	}
	return append(b, out...), nil
}
