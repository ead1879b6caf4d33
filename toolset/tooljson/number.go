package tooljson

import (
	"encoding/json"
	"math"
	"strconv"
	"unsafe"
)

// maxLiteral is how much of a literal a message quotes.
const maxLiteral = 40

// scanNumber validates the JSON number starting at d.pos, moves past it and
// returns it, with whether it is an integer literal (no fraction or exponent).
func (d *Decoder) scanNumber() (lit []byte, isInt, ok bool) {
	data := d.data
	start := d.pos
	i := start
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i >= len(data) {
		d.pos = i
		d.unexpected()
		return nil, false, false
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		d.syntax(i, "invalid number: expected a digit, got "+quoteByte(c))
		return nil, false, false
	}
	isInt = true
	if i < len(data) && data[i] == '.' {
		isInt = false
		i++
		if i >= len(data) || !isDigit(data[i]) {
			d.pos = i
			d.numberDigit()
			return nil, false, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		isInt = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			d.pos = i
			d.numberDigit()
			return nil, false, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	d.pos = i
	d.numStart, d.numEnd = int32(start), int32(i)
	return data[start:i], isInt, true
}

// numberDigit records a missing digit at d.pos.
func (d *Decoder) numberDigit() {
	if d.pos >= len(d.data) {
		d.unexpected()
		return
	}
	d.syntax(d.pos, "invalid number: expected a digit, got "+quoteByte(d.data[d.pos]))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// shorten quotes at most maxLiteral bytes of a literal for a message.
func shorten(lit []byte) string {
	if len(lit) > maxLiteral {
		return string(lit[:maxLiteral]) + "…"
	}
	return string(lit)
}

// number reads a JSON number for a reader that wants it.
func (d *Decoder) number(want string) (lit []byte, isInt, ok bool) {
	c, ok := d.begin()
	if !ok {
		return nil, false, false
	}
	if c != '-' && !isDigit(c) {
		d.mismatch(want)
		return nil, false, false
	}
	return d.scanNumber()
}

// magnitude parses the digits of an integer literal (after any sign); ok is
// false if it does not fit in a uint64.
func magnitude(digits []byte) (v uint64, ok bool) {
	if len(digits) <= 19 { // below 10^19, no overflow possible
		for _, c := range digits {
			v = v*10 + uint64(c-'0')
		}
		return v, true
	}
	for _, c := range digits {
		n := uint64(c - '0')
		if v > (math.MaxUint64-n)/10 {
			return 0, false
		}
		v = v*10 + n
	}
	return v, true
}

// normBits maps a bit size to 8, 16, 32 or 64; anything else means 64.
func normBits(bits int) int {
	switch bits {
	case 8, 16, 32:
		return bits
	}
	return 64
}

// Int reads a JSON integer literal that fits in a signed integer of the given
// bit size (8, 16, 32 or 64). Like encoding/json into an int it rejects
// 1.5, 1e2 and "1"; out of range it records
// `"path" must be an integer between -128 and 127, got 300`.
func (d *Decoder) Int(bits int) int64 {
	lit, isInt, ok := d.number("an integer")
	if !ok {
		return 0
	}
	if !isInt {
		d.failValue("must be an integer, got " + shorten(lit))
		return 0
	}
	bits = normBits(bits)
	neg := lit[0] == '-'
	digits := lit
	if neg {
		digits = lit[1:]
	}
	m, fits := magnitude(digits)
	limit := uint64(1) << (bits - 1) // |min|; max is limit-1
	if !fits || (!neg && m >= limit) || (neg && m > limit) {
		d.failValue("must be an integer between " + strconv.FormatInt(-int64(limit-1)-1, 10) +
			" and " + strconv.FormatUint(limit-1, 10) + ", got " + shorten(lit))
		return 0
	}
	if neg {
		return -int64(m) // wraps to the minimum for m = 1<<63, as intended
	}
	return int64(m)
}

// Uint reads a JSON integer literal that fits in an unsigned integer of the
// given bit size (8, 16, 32 or 64). Like encoding/json it rejects any minus
// sign, even on -0.
func (d *Decoder) Uint(bits int) uint64 {
	lit, isInt, ok := d.number("an integer")
	if !ok {
		return 0
	}
	if !isInt {
		d.failValue("must be an integer, got " + shorten(lit))
		return 0
	}
	bits = normBits(bits)
	max := uint64(math.MaxUint64) >> (64 - bits)
	m, fits := magnitude(lit)
	if lit[0] == '-' || !fits || m > max {
		d.failValue("must be an integer between 0 and " + strconv.FormatUint(max, 10) + ", got " + shorten(lit))
		return 0
	}
	return m
}

// Float reads any JSON number, as a float of the given bit size (32 or 64).
// A number too large for that size is an error, as with encoding/json; one
// too small becomes zero.
func (d *Decoder) Float(bits int) float64 {
	lit, _, ok := d.number("a number")
	if !ok {
		return 0
	}
	if bits != 32 {
		bits = 64
	}
	// strconv does not keep its argument (errors hold a copy), so viewing the
	// input as a string saves a copy.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(lit), len(lit)), bits)
	if err != nil {
		max := strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)
		if bits == 32 {
			max = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)
		}
		d.failValue("must be a number between -" + max + " and " + max + ", got " + shorten(lit))
		return 0
	}
	return f
}

// CompareNumber compares the number the decoder read last, exactly as it is
// written, with bound, a JSON number literal: -1 if the number is smaller, 0
// if equal, +1 if larger. Generated code calls it to check a float against a
// bound when the two are equal as floats, since rounding to a float can make
// a number just past a bound equal to it. It does not allocate.
func (d *Decoder) CompareNumber(bound string) int {
	return compareDecimal(d.data[d.numStart:d.numEnd], unsafe.Slice(unsafe.StringData(bound), len(bound)))
}

// decimal is a JSON number literal split into its sign, the digits before
// and after its point, and its exponent.
type decimal struct {
	neg  bool
	int  []byte // digits before the point
	frac []byte // digits after the point
	exp  int64  // the literal's exponent, saturated far beyond any float's
}

// parseDecimal splits a valid JSON number literal.
func parseDecimal(lit []byte) decimal {
	var n decimal
	if len(lit) > 0 && lit[0] == '-' {
		n.neg = true
		lit = lit[1:]
	}
	i := 0
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	n.int = lit[:i]
	lit = lit[i:]
	if len(lit) > 0 && lit[0] == '.' {
		j := 1
		for j < len(lit) && isDigit(lit[j]) {
			j++
		}
		n.frac = lit[1:j]
		lit = lit[j:]
	}
	if len(lit) > 0 && (lit[0] == 'e' || lit[0] == 'E') {
		lit = lit[1:]
		negExp := false
		if len(lit) > 0 && (lit[0] == '+' || lit[0] == '-') {
			negExp = lit[0] == '-'
			lit = lit[1:]
		}
		for _, c := range lit {
			if n.exp < 1<<40 {
				n.exp = n.exp*10 + int64(c-'0')
			}
		}
		if negExp {
			n.exp = -n.exp
		}
	}
	return n
}

// digitAt returns the k-th significant digit of n counting from its first
// non-zero digit, '0' past the end; lead is the number of leading zeros
// across int and frac.
func (n *decimal) digitAt(lead, k int) byte {
	k += lead
	if k < len(n.int) {
		return n.int[k]
	}
	k -= len(n.int)
	if k < len(n.frac) {
		return n.frac[k]
	}
	return '0'
}

// shape returns the number of leading zeros of n's digits, how many digits
// follow them, and the decimal exponent of the first significant digit
// (the number is 0.d1d2... × 10^e); zero reports a value of zero.
func (n *decimal) shape() (lead, count int, e int64, zero bool) {
	all := len(n.int) + len(n.frac)
	for lead < all && n.digitAt(0, lead) == '0' {
		lead++
	}
	if lead == all {
		return 0, 0, 0, true
	}
	count = all - lead
	for count > 0 && n.digitAt(lead, count-1) == '0' {
		count--
	}
	return lead, count, int64(len(n.int)-lead) + n.exp, false
}

// compareDecimal compares two valid JSON number literals exactly.
func compareDecimal(a, b []byte) int {
	x, y := parseDecimal(a), parseDecimal(b)
	xl, xc, xe, xz := x.shape()
	yl, yc, ye, yz := y.shape()
	sign := func(n *decimal, zero bool) int {
		switch {
		case zero:
			return 0
		case n.neg:
			return -1
		}
		return 1
	}
	sx, sy := sign(&x, xz), sign(&y, yz)
	if sx != sy || sx == 0 {
		switch {
		case sx < sy:
			return -1
		case sx > sy:
			return 1
		}
		return 0
	}
	// Same sign: compare magnitudes, then flip for negatives.
	mag := 0
	switch {
	case xe < ye:
		mag = -1
	case xe > ye:
		mag = 1
	default:
		for k := 0; k < max(xc, yc); k++ {
			dx, dy := x.digitAt(xl, k), y.digitAt(yl, k)
			if k >= xc {
				dx = '0'
			}
			if k >= yc {
				dy = '0'
			}
			if dx != dy {
				mag = 1
				if dx < dy {
					mag = -1
				}
				break
			}
		}
	}
	return mag * sx
}

// Unpadded reports whether s neither begins nor ends with JSON whitespace.
// encoding/json refuses a number that the ",string" option quotes with
// whitespace around it, such as " 42", which the number reader alone would
// skip; generated code checks it too.
func Unpadded(s string) bool {
	if s == "" {
		return true
	}
	pad := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	return !pad(s[0]) && !pad(s[len(s)-1])
}

// Number reads a JSON number and returns it as it is written, as
// encoding/json does for a json.Number. Unlike encoding/json, it does not
// take a string holding a number: the schema of a json.Number field says
// "number", and a string does not satisfy it.
func (d *Decoder) Number() json.Number {
	lit, _, ok := d.number("a number")
	if !ok {
		return ""
	}
	return json.Number(lit)
}

// NumberOK reports whether n can be written as JSON: an empty n (written as
// 0) or a valid JSON number literal, as json.Marshal requires.
func NumberOK(n json.Number) bool {
	if n == "" {
		return true
	}
	d := NewDecoder(unsafe.Slice(unsafe.StringData(string(n)), len(n)))
	c, ok := d.begin()
	if !ok || d.pos != 0 || (c != '-' && !isDigit(c)) {
		return false
	}
	if _, _, ok := d.scanNumber(); !ok {
		return false
	}
	return d.pos == len(n)
}

// AppendNumber appends n as json.Marshal writes a json.Number: as it is,
// or 0 when it is empty. Check it with NumberOK first.
func AppendNumber(b []byte, n json.Number) []byte {
	if n == "" {
		return append(b, '0')
	}
	return append(b, n...)
}
