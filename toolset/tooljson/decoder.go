package tooljson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxDepth is the deepest nesting of objects and arrays the decoder accepts,
// counting the top-level value as one level.
const MaxDepth = 64

// MaxInput is the largest input, in bytes, the decoder accepts. Positions are
// kept as 32-bit integers so the path stack stays small enough for the stack.
const MaxInput = math.MaxInt32

// frame is one open object or array on the path stack.
type frame struct {
	// keyStart and keyEnd delimit the raw (still escaped) current key in the
	// input, so the path costs nothing until an error needs it.
	keyStart, keyEnd int32
	// n counts the members or elements started so far.
	n     int32
	array bool
}

// Decoder reads one JSON value from data, in the order generated code asks
// for its parts. The first error sticks: after it every method does nothing
// and returns a zero value, and Err reports it. A Decoder does not allocate
// unless it returns a string or slice or records an error.
//
// Use NewDecoder, or the zero value and Reset. A Decoder is about 1 KiB and
// is meant to live on the caller's stack.
type Decoder struct {
	data []byte
	pos  int
	err  *Error
	buf  []byte // scratch for escaped keys and base64 text
	// numStart and numEnd delimit the number literal read last, for CompareNumber.
	numStart, numEnd int32
	depth            int
	stack            [MaxDepth]frame
}

// NewDecoder returns a decoder reading data. It is returned by value so that
// it can live on the caller's stack.
func NewDecoder(data []byte) Decoder {
	var d Decoder
	d.Reset(data)
	return d
}

// Reset makes d read data from the start, forgetting any error.
func (d *Decoder) Reset(data []byte) {
	d.data = data
	d.pos = 0
	d.err = nil
	d.depth = 0
	if len(data) > MaxInput {
		d.err = &Error{Message: fmt.Sprintf("invalid JSON: input larger than %d bytes", MaxInput)}
	}
}

// Err returns the first error recorded, nil if none. Its dynamic type is *Error.
func (d *Decoder) Err() error {
	if d.err == nil {
		return nil
	}
	return d.err
}

// Failf records an error about the value at the current path; only the first
// error sticks. The message follows the path, so generated constraint checks
// pass the predicate: d.Failf("must be at most %d, got %d", 100, v) records
// `"limit" must be at most 100, got 500`.
func (d *Decoder) Failf(format string, args ...any) {
	if d.err != nil {
		return
	}
	d.failValue(fmt.Sprintf(format, args...))
}

// Missing records `missing required property "path.name"`, where path is the
// path of the object just read (empty at the top level). Call it after Field
// has returned false.
func (d *Decoder) Missing(name string) {
	if d.err != nil {
		return
	}
	p := d.Path()
	if p != "" {
		p += "." + name
	} else {
		p = name
	}
	d.err = &Error{Path: p, Message: "missing required property " + strconv.Quote(p)}
}

// Unknown records `unknown property "path.key"; allowed: <allowed>` for a key
// of the current object that the type does not have. allowed lists the
// property names, as the generator writes them.
func (d *Decoder) Unknown(key []byte, allowed string) {
	if d.err != nil {
		return
	}
	var sb strings.Builder
	d.writePath(&sb, d.depth-1)
	if sb.Len() > 0 {
		sb.WriteByte('.')
	}
	sb.Write(key)
	p := sb.String()
	msg := "unknown property " + strconv.Quote(p)
	if allowed != "" {
		msg += "; allowed: " + allowed
	}
	d.err = &Error{Path: p, Message: msg}
}

// Path returns the current JSON path, such as `filter.tags[2]`: inside an
// object the key Field returned last, inside an array the index Elem reached.
// It allocates, and is meant for messages.
func (d *Decoder) Path() string {
	var sb strings.Builder
	d.writePath(&sb, d.depth)
	return sb.String()
}

// writePath writes the path formed by the first n frames.
func (d *Decoder) writePath(sb *strings.Builder, n int) {
	for i := 0; i < n && i < d.depth; i++ {
		f := &d.stack[i]
		if f.n == 0 {
			continue
		}
		if f.array {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(int(f.n - 1)))
			sb.WriteByte(']')
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		raw := d.data[f.keyStart:f.keyEnd]
		if needsUnescape(raw) {
			sb.Write(appendUnescaped(nil, raw))
		} else {
			sb.Write(raw)
		}
	}
}

// failValue records `"path" predicate` at the current path; the top-level
// value is called "arguments".
func (d *Decoder) failValue(predicate string) {
	if d.err != nil {
		return
	}
	p := d.Path()
	subject := "arguments"
	if p != "" {
		subject = strconv.Quote(p)
	}
	d.err = &Error{Path: p, Message: subject + " " + predicate}
}

// syntax records invalid JSON at offset at.
func (d *Decoder) syntax(at int, what string) {
	if d.err != nil {
		return
	}
	d.err = &Error{Path: d.Path(), Message: "invalid JSON at offset " + strconv.Itoa(at) + ": " + what}
}

// tooDeep records that the nesting limit was passed at offset at.
func (d *Decoder) tooDeep(at int) {
	if d.err != nil {
		return
	}
	d.err = &Error{Path: d.Path(), Message: "invalid JSON at offset " + strconv.Itoa(at) +
		": nested too deeply (more than " + strconv.Itoa(MaxDepth) + " levels)"}
}

// unexpected records an unexpected byte, or the end of input, at d.pos.
func (d *Decoder) unexpected() {
	if d.pos >= len(d.data) {
		d.syntax(d.pos, "unexpected end of input")
		return
	}
	d.syntax(d.pos, "unexpected character "+quoteByte(d.data[d.pos]))
}

// quoteByte renders b for a message.
func quoteByte(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return strconv.QuoteRune(rune(b))
	}
	return fmt.Sprintf("byte 0x%02x", b)
}

// kindOf names the kind of JSON value starting with c, "" if none does.
func kindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "number"
	}
	return ""
}

// mismatch records that the value at d.pos is not what was wanted ("an
// object", "a string"), or a syntax error if no value starts there.
func (d *Decoder) mismatch(want string) {
	k := kindOf(d.data[d.pos])
	if k == "" {
		d.unexpected()
		return
	}
	d.failValue("must be " + want + ", got " + k)
}

// skipSpace advances past JSON whitespace.
func (d *Decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// begin skips whitespace before a value and returns its first byte; false if
// an error is recorded or the input ended.
func (d *Decoder) begin() (byte, bool) {
	if d.err != nil {
		return 0, false
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		d.unexpected()
		return 0, false
	}
	return d.data[d.pos], true
}

// push opens an object or array whose bracket is at d.pos.
func (d *Decoder) push(array bool) bool {
	if d.depth >= MaxDepth {
		d.tooDeep(d.pos)
		return false
	}
	d.pos++
	d.stack[d.depth] = frame{array: array}
	d.depth++
	return true
}

// Null reports whether the next value is null, consuming it if so. Other
// values are left for the next call. Typed readers reject null, so generated
// code calls Null first for optional and nullable fields.
func (d *Decoder) Null() bool {
	c, ok := d.begin()
	if !ok || c != 'n' {
		return false
	}
	return d.literal("null")
}

// literal consumes lit, which starts at d.pos.
func (d *Decoder) literal(lit string) bool {
	for i := 0; i < len(lit); i++ {
		if d.pos+i >= len(d.data) || d.data[d.pos+i] != lit[i] {
			d.pos += i
			d.unexpected()
			return false
		}
	}
	d.pos += len(lit)
	return true
}

// Object reads the '{' opening an object and reports whether it did; any
// other value records `"path" must be an object, got string`. Read the
// members with Field until it returns false.
func (d *Decoder) Object() bool {
	c, ok := d.begin()
	if !ok {
		return false
	}
	if c != '{' {
		d.mismatch("an object")
		return false
	}
	return d.push(false)
}

// Field reads the next key of the current object and the ':' after it, and
// reports whether there was one; at '}' it closes the object and returns
// false, as it does on error. The key is unescaped; it may alias the input or
// an internal buffer and is valid until the next call. The key becomes part
// of the path, so errors in its value name it.
func (d *Decoder) Field() ([]byte, bool) {
	if d.err != nil {
		return nil, false
	}
	if d.depth == 0 || d.stack[d.depth-1].array {
		d.err = &Error{Path: d.Path(), Message: "tooljson: Field called outside an object"}
		return nil, false
	}
	f := &d.stack[d.depth-1]
	d.skipSpace()
	if d.pos >= len(d.data) {
		d.unexpected()
		return nil, false
	}
	c := d.data[d.pos]
	if c == '}' {
		d.pos++
		d.depth--
		return nil, false
	}
	if f.n > 0 {
		if c != ',' {
			d.syntax(d.pos, "expected ',' or '}' after object member, got "+quoteByte(c))
			return nil, false
		}
		d.pos++
		d.skipSpace()
		if d.pos >= len(d.data) {
			d.unexpected()
			return nil, false
		}
		c = d.data[d.pos]
	}
	if c != '"' {
		d.syntax(d.pos, "expected a string for an object key, got "+quoteByte(c))
		return nil, false
	}
	start := d.pos + 1
	simple := d.scanString()
	if d.err != nil {
		return nil, false
	}
	end := d.pos - 1
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		if d.pos >= len(d.data) {
			d.unexpected()
		} else {
			d.syntax(d.pos, "expected ':' after object key, got "+quoteByte(d.data[d.pos]))
		}
		return nil, false
	}
	d.pos++
	f.keyStart, f.keyEnd = int32(start), int32(end)
	f.n++
	raw := d.data[start:end]
	if simple {
		return raw, true
	}
	d.buf = appendUnescaped(d.buf[:0], raw)
	return d.buf, true
}

// Array reads the '[' opening an array and reports whether it did; any other
// value records `"path" must be an array, got object`. Read the elements with
// Elem until it returns false.
func (d *Decoder) Array() bool {
	c, ok := d.begin()
	if !ok {
		return false
	}
	if c != '[' {
		d.mismatch("an array")
		return false
	}
	return d.push(true)
}

// Elem reports whether the current array has another element, for the caller
// to read; at ']' it closes the array and returns false, as it does on error.
// The element's index becomes part of the path.
func (d *Decoder) Elem() bool {
	if d.err != nil {
		return false
	}
	if d.depth == 0 || !d.stack[d.depth-1].array {
		d.err = &Error{Path: d.Path(), Message: "tooljson: Elem called outside an array"}
		return false
	}
	f := &d.stack[d.depth-1]
	d.skipSpace()
	if d.pos >= len(d.data) {
		d.unexpected()
		return false
	}
	c := d.data[d.pos]
	if c == ']' {
		d.pos++
		d.depth--
		return false
	}
	if f.n > 0 {
		if c != ',' {
			d.syntax(d.pos, "expected ',' or ']' after array element, got "+quoteByte(c))
			return false
		}
		d.pos++
	}
	f.n++
	return true
}

// End checks that only whitespace follows the top-level value.
func (d *Decoder) End() {
	if d.err != nil {
		return
	}
	if d.depth != 0 {
		d.err = &Error{Path: d.Path(), Message: "tooljson: End called inside an unfinished value"}
		return
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		d.syntax(d.pos, "unexpected data after the top-level value")
	}
}

// Duplicate records `duplicate property "path"; give each property once` for
// the key Field returned last. Like encoding/json/v2, and unlike encoding/json
// (which keeps the last value), generated decoders refuse an object that
// names a property twice: schema validators read such objects differently,
// and a model that repeats a key has most likely made a mistake.
func (d *Decoder) Duplicate() {
	if d.err != nil {
		return
	}
	p := d.Path()
	d.err = &Error{Path: p, Message: "duplicate property " + strconv.Quote(p) + "; give each property once"}
}
