package tooljson

import (
	"encoding/json"
	"strings"
	"time"
)

// Bool reads true or false.
func (d *Decoder) Bool() bool {
	c, ok := d.begin()
	if !ok {
		return false
	}
	switch c {
	case 't':
		return d.literal("true")
	case 'f':
		d.literal("false")
		return false
	}
	d.mismatch("a boolean")
	return false
}

// Time reads an RFC 3339 date-time string such as "2006-01-02T15:04:05Z" or
// "2006-01-02T15:04:05.5+01:00". It accepts what time.Time.UnmarshalJSON
// accepts and JSON Schema's "date-time" format accepts too, and returns the
// value UnmarshalJSON returns: the lax forms only the time package takes (a
// one-digit hour, a comma before the fraction, an offset of 24 hours or
// more) and the ones only RFC 3339 takes (a lowercase t or z, a leap second)
// are refused, as are escapes. So every time it returns can be written back
// by time.Time.MarshalJSON.
func (d *Decoder) Time() time.Time {
	c, ok := d.begin()
	if !ok {
		return time.Time{}
	}
	if c != '"' {
		d.mismatch("a date-time string (RFC 3339)")
		return time.Time{}
	}
	start := d.pos
	d.scanString()
	if d.err != nil {
		return time.Time{}
	}
	if t, ok := parseUTCTime(d.data[start+1 : d.pos-1]); ok {
		return t
	}
	var t time.Time
	if !rfc3339Form(d.data[start+1:d.pos-1]) || t.UnmarshalJSON(d.data[start:d.pos]) != nil {
		d.failValue("must be a date-time string in RFC 3339 format, such as \"2006-01-02T15:04:05Z\", got " +
			shorten(d.data[start:d.pos]))
		return time.Time{}
	}
	return t
}

// Skip validates the next value and moves past it.
func (d *Decoder) Skip() {
	d.skipValue()
}

// Check reports, as an [*Error] with the decoder's message, whether data is
// one JSON value within the decoder's limits ([MaxDepth], [MaxInput]), or nil.
// Callers that must refuse what generated code would refuse, before any
// code reads the value, use it instead of json.Valid: that stops at 10,000
// levels with a message that does not say why.
func Check(data []byte) error {
	d := NewDecoder(data)
	d.Skip()
	d.End()
	return d.Err()
}

// Raw validates the next value and returns a copy of its bytes, exactly as
// they appear in the input (for json.RawMessage and similar).
func (d *Decoder) Raw() []byte {
	start, ok := d.skipValue()
	if !ok {
		return nil
	}
	return append([]byte(nil), d.data[start:d.pos]...)
}

// Fallback decodes the next value into v with encoding/json, for the rare
// types generated code does not handle itself. Problems are reported at the
// current path.
func (d *Decoder) Fallback(v any) {
	start, ok := d.skipValue()
	if !ok {
		return
	}
	if err := json.Unmarshal(d.data[start:d.pos], v); err != nil {
		d.failValue("is invalid: " + strings.TrimPrefix(err.Error(), "json: "))
	}
}

// skipValue validates the next value and moves past it, returning where it
// starts. It keeps its own stack of open containers in a bit set, one bit a
// level, rather than recursing, so no input can exhaust the Go stack; the
// nesting counts towards MaxDepth together with the decoder's own.
func (d *Decoder) skipValue() (start int, ok bool) {
	if _, ok := d.begin(); !ok {
		return 0, false
	}
	start = d.pos
	var objects uint64 // bit i set: level i is an object
	depth := 0         // open containers inside the value
	for {
		// A value is expected at d.pos.
		d.skipSpace()
		if d.pos >= len(d.data) {
			d.unexpected()
			return 0, false
		}
		closed := true // the value ended; false if it opened a container
		switch c := d.data[d.pos]; c {
		case '{', '[':
			if d.depth+depth >= MaxDepth {
				d.tooDeep(d.pos)
				return 0, false
			}
			d.pos++
			d.skipSpace()
			end := byte(']')
			if c == '{' {
				end = '}'
			}
			if d.pos < len(d.data) && d.data[d.pos] == end {
				d.pos++
				break
			}
			if c == '{' {
				objects |= 1 << depth
				if !d.skipKey() {
					return 0, false
				}
			} else {
				objects &^= 1 << depth
			}
			depth++
			closed = false
		case '"':
			d.scanString()
		case 't':
			d.literal("true")
		case 'f':
			d.literal("false")
		case 'n':
			d.literal("null")
		default:
			if c == '-' || isDigit(c) {
				d.scanNumber()
			} else {
				d.unexpected()
			}
		}
		if d.err != nil {
			return 0, false
		}
		if !closed {
			continue
		}
		// After a value: close containers until one continues.
		for {
			if depth == 0 {
				return start, true
			}
			d.skipSpace()
			if d.pos >= len(d.data) {
				d.unexpected()
				return 0, false
			}
			c := d.data[d.pos]
			isObject := objects&(1<<(depth-1)) != 0
			end := byte(']')
			if isObject {
				end = '}'
			}
			if c == end {
				d.pos++
				depth--
				continue
			}
			if c != ',' {
				if isObject {
					d.syntax(d.pos, "expected ',' or '}' after object member, got "+quoteByte(c))
				} else {
					d.syntax(d.pos, "expected ',' or ']' after array element, got "+quoteByte(c))
				}
				return 0, false
			}
			d.pos++
			if isObject {
				d.skipSpace()
				if !d.skipKey() {
					return 0, false
				}
			}
			break
		}
	}
}

// skipKey validates an object key and the ':' after it, at d.pos.
func (d *Decoder) skipKey() bool {
	if d.pos >= len(d.data) {
		d.unexpected()
		return false
	}
	if c := d.data[d.pos]; c != '"' {
		d.syntax(d.pos, "expected a string for an object key, got "+quoteByte(c))
		return false
	}
	d.scanString()
	if d.err != nil {
		return false
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		d.unexpected()
		return false
	}
	if c := d.data[d.pos]; c != ':' {
		d.syntax(d.pos, "expected ':' after object key, got "+quoteByte(c))
		return false
	}
	d.pos++
	return true
}
