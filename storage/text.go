package storage

import (
	"fmt"
	"unicode/utf8"
)

// What every store accepts, so that a program tested on the memory store
// behaves the same on Postgres: the rules are those of a Postgres text
// column and of jsonb in a UTF-8 database, and each store checks them before
// it writes anything.
const (
	// MaxIDLength is the longest settings id, conversation id or settings
	// kind, in bytes. A Postgres primary key holds two of them; at 512 bytes
	// each they stay well within its index's limit on an entry (2704 bytes).
	MaxIDLength = 512

	// MaxJSONDepth is the deepest nesting of objects and arrays in entry and
	// settings data. It leaves room above encoding/json's own limit (10,000)
	// for the envelopes a value is stored in, and below what Postgres parses
	// with its default max_stack_depth of 2MB (about 13,000).
	MaxJSONDepth = 10_100
)

// Limits of Postgres's numeric type, which holds jsonb numbers.
const (
	maxNumericWeight = 131072    // decimal digits before the point
	maxNumericScale  = 16383     // decimal digits after the point
	maxNumericExp    = 1<<30 - 1 // largest exponent it reads at all (INT_MAX/2)
)

// JSONError says why data cannot be stored. It wraps [ErrInvalid].
type JSONError struct {
	// Offset is the byte offset of the problem in the data.
	Offset int
	// Kind says which rule the data breaks.
	Kind JSONErrorKind
	// Reason says what is wrong, such as "a \u0000 escape".
	Reason string
}

// JSONErrorKind says which of [CheckJSON]'s rules data breaks.
type JSONErrorKind int

// The rules of CheckJSON.
const (
	// JSONSyntax: the data is not one JSON value.
	JSONSyntax JSONErrorKind = iota
	// JSONText: a string holds invalid UTF-8, a \u0000 escape or half a
	// surrogate pair; [SanitizeJSON] mends it.
	JSONText
	// JSONNumber: a number is out of the range of Postgres's numeric;
	// SanitizeJSON writes it as a string.
	JSONNumber
	// JSONDepth: objects and arrays nest deeper than MaxJSONDepth.
	JSONDepth
)

// Error gives the reason and the offset.
func (e *JSONError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Reason, e.Offset)
}

// Unwrap returns ErrInvalid, so errors.Is(err, ErrInvalid) holds.
func (e *JSONError) Unwrap() error { return ErrInvalid }

// CheckJSON reports a [*JSONError] unless data is one JSON value that every
// store can hold: valid JSON (RFC 8259) in valid UTF-8, with no \u0000 escape
// and no escape of half a surrogate pair without its other half (Postgres
// jsonb refuses both), nested at most [MaxJSONDepth] levels, and with
// numbers in the range of Postgres's numeric type (at most 131,072 digits
// before the point and 16,383 after, as written). It reads data once and
// does not allocate unless it fails.
func CheckJSON(data []byte) error {
	var c jsonChecker
	c.data = data
	if !c.check() {
		return &JSONError{Offset: c.pos, Kind: c.kind, Reason: c.reason}
	}
	return nil
}

// jsonChecker is CheckJSON's state: a position and one bit per open
// container (set for an object).
type jsonChecker struct {
	data    []byte
	pos     int
	reason  string
	kind    JSONErrorKind
	depth   int
	objects [MaxJSONDepth/64 + 1]uint64
}

func (c *jsonChecker) fail(reason string) bool {
	c.reason = reason
	return false
}

func (c *jsonChecker) failKind(kind JSONErrorKind, reason string) bool {
	c.kind = kind
	return c.fail(reason)
}

func (c *jsonChecker) space() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// check reads the whole input. It keeps its own stack, so no input can
// exhaust the Go stack.
func (c *jsonChecker) check() bool {
	for {
		// A value is expected.
		c.space()
		if c.pos >= len(c.data) {
			return c.fail("unexpected end of JSON")
		}
		switch b := c.data[c.pos]; {
		case b == '{' || b == '[':
			if c.depth >= MaxJSONDepth {
				return c.failKind(JSONDepth, fmt.Sprintf("JSON nested deeper than %d levels", MaxJSONDepth))
			}
			c.pos++
			c.space()
			if b == '{' {
				c.objects[c.depth/64] |= 1 << (c.depth % 64)
			} else {
				c.objects[c.depth/64] &^= 1 << (c.depth % 64)
			}
			c.depth++
			if c.pos < len(c.data) && (b == '{' && c.data[c.pos] == '}' || b == '[' && c.data[c.pos] == ']') {
				c.pos++
				c.depth--
				break
			}
			if b == '{' {
				if !c.key() {
					return false
				}
			}
			continue
		case b == '"':
			if !c.str() {
				return false
			}
		case b == 't':
			if !c.literal("true") {
				return false
			}
		case b == 'f':
			if !c.literal("false") {
				return false
			}
		case b == 'n':
			if !c.literal("null") {
				return false
			}
		case b == '-' || '0' <= b && b <= '9':
			if !c.number() {
				return false
			}
		default:
			return c.unexpected()
		}
		// A value ended: close containers until one continues.
		for {
			c.space()
			if c.depth == 0 {
				if c.pos < len(c.data) {
					return c.unexpected()
				}
				return true
			}
			if c.pos >= len(c.data) {
				return c.fail("unexpected end of JSON")
			}
			object := c.objects[(c.depth-1)/64]&(1<<((c.depth-1)%64)) != 0
			b := c.data[c.pos]
			if object && b == '}' || !object && b == ']' {
				c.pos++
				c.depth--
				continue
			}
			if b != ',' {
				return c.unexpected()
			}
			c.pos++
			if object {
				c.space()
				if !c.key() {
					return false
				}
			}
			break
		}
	}
}

// key reads an object key and its colon.
func (c *jsonChecker) key() bool {
	if c.pos >= len(c.data) {
		return c.fail("unexpected end of JSON")
	}
	if c.data[c.pos] != '"' {
		return c.unexpected()
	}
	if !c.str() {
		return false
	}
	c.space()
	if c.pos >= len(c.data) || c.data[c.pos] != ':' {
		return c.unexpected()
	}
	c.pos++
	return true
}

func (c *jsonChecker) unexpected() bool {
	if c.pos >= len(c.data) {
		return c.fail("unexpected end of JSON")
	}
	b := c.data[c.pos]
	if b == 0 {
		return c.fail("a NUL byte")
	}
	if b < 0x20 || b >= 0x7f {
		return c.fail(fmt.Sprintf("unexpected byte 0x%02x in JSON", b))
	}
	return c.fail(fmt.Sprintf("unexpected %q in JSON", b))
}

func (c *jsonChecker) literal(lit string) bool {
	if len(c.data)-c.pos < len(lit) || string(c.data[c.pos:c.pos+len(lit)]) != lit {
		return c.unexpected()
	}
	c.pos += len(lit)
	return true
}

// str reads a string whose quote is at c.pos.
func (c *jsonChecker) str() bool {
	c.pos++
	for {
		// The common case: bytes that need no attention.
		for c.pos < len(c.data) {
			b := c.data[c.pos]
			if b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
				break
			}
			c.pos++
		}
		if c.pos >= len(c.data) {
			return c.fail("unexpected end of JSON in a string")
		}
		switch b := c.data[c.pos]; {
		case b == '"':
			c.pos++
			return true
		case b == '\\':
			if !c.escape() {
				return false
			}
		case b == 0:
			return c.fail("a NUL byte")
		case b < 0x20:
			return c.fail(fmt.Sprintf("control character 0x%02x in a string", b))
		default:
			r, size := utf8.DecodeRune(c.data[c.pos:])
			if r == utf8.RuneError && size <= 1 {
				return c.failKind(JSONText, "invalid UTF-8")
			}
			c.pos += size
		}
	}
}

// escape reads a backslash escape at c.pos.
func (c *jsonChecker) escape() bool {
	if c.pos+1 >= len(c.data) {
		return c.fail("unexpected end of JSON in a string")
	}
	switch c.data[c.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		c.pos += 2
		return true
	case 'u':
	default:
		c.pos++
		return c.fail("invalid escape in a string")
	}
	r, ok := hex4(c.data[c.pos+2:])
	if !ok {
		return c.fail("invalid \\u escape in a string")
	}
	switch {
	case r == 0:
		return c.failKind(JSONText, `a \u0000 escape`)
	case 0xDC00 <= r && r <= 0xDFFF:
		return c.failKind(JSONText, "a \\u escape of a low surrogate without a high one before it")
	case 0xD800 <= r && r <= 0xDBFF:
		next := c.data[c.pos+6:]
		if len(next) < 2 || next[0] != '\\' || next[1] != 'u' {
			return c.failKind(JSONText, "a \\u escape of a high surrogate without a low one after it")
		}
		lo, ok := hex4(next[2:])
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return c.failKind(JSONText, "a \\u escape of a high surrogate without a low one after it")
		}
		c.pos += 12
		return true
	}
	c.pos += 6
	return true
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number at c.pos and checks that Postgres's numeric type
// holds it: the position of its first significant digit and the count of
// digits after the point, as written, once the exponent is applied.
func (c *jsonChecker) number() bool {
	start := c.pos
	d := c.data
	if d[c.pos] == '-' {
		c.pos++
	}
	digits := func() int {
		n := 0
		for c.pos < len(d) && '0' <= d[c.pos] && d[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	if c.pos >= len(d) || d[c.pos] < '0' || d[c.pos] > '9' {
		return c.unexpected()
	}
	intDigits := 1
	if d[c.pos] == '0' {
		c.pos++
		intDigits = 0 // "0": no significant digit
	} else {
		intDigits = digits()
	}
	nonzero := intDigits > 0
	fracDigits, fracZeros := 0, 0
	if c.pos < len(d) && d[c.pos] == '.' {
		c.pos++
		fracStart := c.pos
		if fracDigits = digits(); fracDigits == 0 {
			return c.unexpected()
		}
		for fracZeros < fracDigits && d[fracStart+fracZeros] == '0' {
			fracZeros++
		}
		nonzero = nonzero || fracZeros < fracDigits
	}
	exp := 0
	if c.pos < len(d) && (d[c.pos] == 'e' || d[c.pos] == 'E') {
		c.pos++
		neg := false
		if c.pos < len(d) && (d[c.pos] == '+' || d[c.pos] == '-') {
			neg = d[c.pos] == '-'
			c.pos++
		}
		if c.pos >= len(d) || d[c.pos] < '0' || d[c.pos] > '9' {
			return c.unexpected()
		}
		for c.pos < len(d) && '0' <= d[c.pos] && d[c.pos] <= '9' {
			if exp <= maxNumericExp {
				exp = exp*10 + int(d[c.pos]-'0')
			}
			c.pos++
		}
		if exp >= maxNumericExp {
			c.pos = start
			return c.failKind(JSONNumber, "a number whose exponent is out of range")
		}
		if neg {
			exp = -exp
		}
	}
	weight := intDigits + exp
	if intDigits == 0 {
		weight = exp - fracZeros
	}
	if fracDigits-exp > maxNumericScale || nonzero && weight > maxNumericWeight {
		c.pos = start
		return c.failKind(JSONNumber, "a number out of the range a store holds")
	}
	return true
}

// CheckText reports ErrInvalid unless s is valid UTF-8 without NUL, which a
// Postgres text column holds. what names s in the message.
func CheckText(what, s string) error {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b == 0 {
				return fmt.Errorf("storage: %s has a NUL byte at offset %d: %w", what, i, ErrInvalid)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("storage: %s has invalid UTF-8 at offset %d: %w", what, i, ErrInvalid)
		}
		i += size
	}
	return nil
}

// checkID reports ErrInvalid for an id no store holds: empty, longer than
// MaxIDLength, or not text (see CheckText).
func checkID(what, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("storage: empty %s: %w", what, ErrInvalid)
	case len(id) > MaxIDLength:
		return fmt.Errorf("storage: %s of %d bytes, more than %d: %w", what, len(id), MaxIDLength, ErrInvalid)
	}
	return CheckText(what, id)
}

// replacement is U+FFFD in UTF-8 and as a JSON escape.
const (
	replacement       = "\uFFFD"
	replacementEscape = `\ufffd`
)

// SanitizeJSON returns data mended to pass [CheckJSON]'s rules on text and
// numbers: each byte of invalid UTF-8, each \u0000 escape and each \u escape
// of half a surrogate pair becomes U+FFFD, and each number Postgres's numeric
// cannot hold becomes a string of its digits. It returns data itself when
// there is nothing to mend. Valid JSON stays valid, and the result depends on
// data alone. Syntax and depth it leaves as they are.
func SanitizeJSON(data []byte) []byte {
	var out []byte // nil until the first replacement
	last := 0      // data[:last] is in out already
	replace := func(from, to int, with ...string) {
		if out == nil {
			out = make([]byte, 0, len(data)+16)
		}
		out = append(out, data[last:from]...)
		for _, w := range with {
			out = append(out, w...)
		}
		last = to
	}
	inString := false
	for i := 0; i < len(data); {
		b := data[i]
		switch {
		case b == '"':
			inString = !inString
			i++
		case !inString && (b == '-' || '0' <= b && b <= '9'):
			j := i + 1
			for j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] == '+' ||
				data[j] == '-' || '0' <= data[j] && data[j] <= '9') {
				j++
			}
			c := jsonChecker{data: data[i:j]}
			if !c.number() && c.kind == JSONNumber {
				replace(i, j, `"`, string(data[i:j]), `"`)
			}
			i = j
		case b == '\\' && i+1 < len(data) && data[i+1] == 'u':
			r, ok := hex4(data[i+2:])
			switch {
			case !ok:
				i += 2
			case r == 0 || 0xDC00 <= r && r <= 0xDFFF:
				replace(i, i+6, replacementEscape)
				i += 6
			case 0xD800 <= r && r <= 0xDBFF:
				if lo, ok := hex4(data[min(i+8, len(data)):]); ok && i+7 < len(data) &&
					data[i+6] == '\\' && data[i+7] == 'u' && 0xDC00 <= lo && lo <= 0xDFFF {
					i += 12
					break
				}
				replace(i, i+6, replacementEscape)
				i += 6
			default:
				i += 6
			}
		case b == '\\' && i+1 < len(data) && data[i+1] < utf8.RuneSelf:
			i += 2 // another escape: its second byte is not the start of one
		case b < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				replace(i, i+1, replacement)
			}
			i += size
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[min(last, len(data)):]...)
}

// SanitizeText returns s with each NUL byte and each byte of invalid UTF-8
// replaced by U+FFFD, or s itself when it has none.
func SanitizeText(s string) string {
	if CheckText("", s) == nil {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && size <= 1 {
			out = append(out, replacement...)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}
