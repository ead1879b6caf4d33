package tooljson

import (
	"encoding/base64"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// plain marks the bytes a JSON string may hold as they are: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString validates the string whose opening quote is at d.pos and moves
// past its closing quote. It reports whether the content can be used as it
// is: no escapes and valid UTF-8.
func (d *Decoder) scanString() (simple bool) {
	data := d.data
	i := d.pos + 1
	simple = true
	for {
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			d.pos = i
			d.unexpected()
			return false
		}
		switch c := data[i]; {
		case c == '"':
			d.pos = i + 1
			return simple
		case c == '\\':
			simple = false
			if i+1 >= len(data) {
				d.pos = i + 1
				d.unexpected()
				return false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(data[i+2:]) < 0 {
					d.syntax(i, "invalid \\u escape in string")
					return false
				}
				i += 6
			default:
				d.syntax(i, "invalid escape "+quoteEscape(data[i+1])+" in string")
				return false
			}
		case c < 0x20:
			d.syntax(i, "control character "+quoteByte(c)+" in string (escape it)")
			return false
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				simple = false
			}
			i += size
		}
	}
}

// quoteEscape renders an escape character for a message.
func quoteEscape(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return `'\` + string(rune(c)) + `'`
	}
	return quoteByte(c)
}

// hex4 decodes the four hex digits at the start of b, -1 if there are none.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// needsUnescape reports whether the validated string content raw has escapes
// or invalid UTF-8.
func needsUnescape(raw []byte) bool {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c == '\\' {
			return true
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		i += size
	}
	return false
}

// appendUnescaped appends the text of validated string content raw, the way
// encoding/json unquotes it: each invalid UTF-8 byte and each unpaired
// surrogate escape becomes U+FFFD.
func appendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			switch raw[i+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(raw[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2 = hex4(raw[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, raw[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, raw[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// stringContent reads a JSON string and returns its raw content (between the
// quotes) and whether it can be used as it is; ok is false on error.
func (d *Decoder) stringContent(want string) (raw []byte, simple, ok bool) {
	c, ok := d.begin()
	if !ok {
		return nil, false, false
	}
	if c != '"' {
		d.mismatch(want)
		return nil, false, false
	}
	start := d.pos + 1
	simple = d.scanString()
	if d.err != nil {
		return nil, false, false
	}
	return d.data[start : d.pos-1], simple, true
}

// String reads a JSON string; anything else records
// `"path" must be a string, got number`. Invalid UTF-8 and unpaired
// surrogates become U+FFFD, as with encoding/json. The result costs one
// allocation, none if it is empty.
func (d *Decoder) String() string {
	raw, simple, ok := d.stringContent("a string")
	if !ok {
		return ""
	}
	if simple {
		return string(raw)
	}
	buf := appendUnescaped(make([]byte, 0, len(raw)), raw)
	// buf is never written again, so the string may share its memory; this
	// saves the copy string(buf) would make.
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// StringBytes reads a JSON string as String does and returns its text
// without copying it: the result may alias the input or an internal buffer
// and is valid until the next call. Generated code uses it to match a value
// against an enumeration, keeping the type's constant rather than a copy.
func (d *Decoder) StringBytes() []byte {
	raw, simple, ok := d.stringContent("a string")
	if !ok {
		return nil
	}
	if simple {
		return raw
	}
	d.buf = appendUnescaped(d.buf[:0], raw)
	return d.buf
}

// Bytes reads a JSON string holding standard base64 with padding, as
// encoding/json writes a []byte, and returns the decoded bytes (non-nil, even
// when empty). Unlike encoding/json it does not accept an array of numbers.
func (d *Decoder) Bytes() []byte {
	raw, simple, ok := d.stringContent("a base64 string")
	if !ok {
		return nil
	}
	if !simple {
		d.buf = appendUnescaped(d.buf[:0], raw)
		raw = d.buf
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(out, raw)
	if err != nil {
		at := int64(-1)
		if ce, ok := err.(base64.CorruptInputError); ok {
			at = int64(ce)
		}
		d.failValue("must be a base64 string (standard alphabet, padded), got invalid data at byte " +
			strconv.FormatInt(at, 10))
		return nil
	}
	return out[:n]
}
