package tooljson

import (
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
