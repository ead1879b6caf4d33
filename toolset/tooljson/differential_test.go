package tooljson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeOne reads in with read, as the whole input.
func decodeOne[T any](in []byte, read func(d *Decoder) T) (T, error) {
	d := NewDecoder(in)
	v := read(&d)
	d.End()
	return v, d.Err()
}

// agreeOne checks that read accepts in exactly when json.Unmarshal into a T
// does, with the same value. Null, which the readers reject on purpose, and
// nesting beyond MaxDepth are left out.
func agreeOne[T any](in []byte, read func(d *Decoder) T, equal func(a, b T) bool) error {
	return agreeValid(in, read, equal, nil)
}

// agreeValid is agreeOne where the reference also requires valid(in), as
// schema validation does for a time's "date-time" format.
func agreeValid[T any](in []byte, read func(d *Decoder) T, equal func(a, b T) bool, valid func([]byte) bool) error {
	got, err := decodeOne(in, read)
	var want T
	jerr := json.Unmarshal(in, &want)
	if jerr == nil && valid != nil && !valid(in) {
		jerr = fmt.Errorf("not valid as the schema says")
	}
	if err != nil && strings.Contains(err.Error(), "nested too deeply") {
		return nil
	}
	if _, raw := any(want).(json.RawMessage); isNull(in) && !raw {
		if err == nil || !strings.Contains(err.Error(), "got null") {
			return fmt.Errorf("%T: null: got error %v, want a rejection", want, err)
		}
		return nil
	}
	if (err == nil) != (jerr == nil) {
		return fmt.Errorf("%T: %q: error %v, encoding/json error %v", want, in, err, jerr)
	}
	if err == nil && !equal(got, want) {
		return fmt.Errorf("%T: %q: got %#v, encoding/json %#v", want, in, got, want)
	}
	return nil
}

// schemaDateTime reports whether in is a JSON string that JSON Schema's
// "date-time" format accepts, as jsonschema/v6 checks it.
func schemaDateTime(in []byte) bool {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return false
	}
	return dateTimeFormat.Validate(v) == nil
}

func isNull(in []byte) bool {
	return string(bytes.Trim(in, " \t\r\n")) == "null"
}

func eq[T comparable](a, b T) bool { return a == b }

func eqFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b)
}

func eqTime(a, b time.Time) bool {
	_, oa := a.Zone()
	_, ob := b.Zone()
	return a.Equal(b) && oa == ob
}

// agree runs every typed reader against encoding/json on in.
func agree(in []byte) error {
	return errorsJoin(
		agreeOne(in, (*Decoder).String, eq[string]),
		agreeOne(in, func(d *Decoder) int8 { return int8(d.Int(8)) }, eq[int8]),
		agreeOne(in, func(d *Decoder) int16 { return int16(d.Int(16)) }, eq[int16]),
		agreeOne(in, func(d *Decoder) int32 { return int32(d.Int(32)) }, eq[int32]),
		agreeOne(in, func(d *Decoder) int64 { return d.Int(64) }, eq[int64]),
		agreeOne(in, func(d *Decoder) uint8 { return uint8(d.Uint(8)) }, eq[uint8]),
		agreeOne(in, func(d *Decoder) uint16 { return uint16(d.Uint(16)) }, eq[uint16]),
		agreeOne(in, func(d *Decoder) uint32 { return uint32(d.Uint(32)) }, eq[uint32]),
		agreeOne(in, func(d *Decoder) uint64 { return d.Uint(64) }, eq[uint64]),
		agreeOne(in, func(d *Decoder) float32 { return float32(d.Float(32)) }, func(a, b float32) bool { return eqFloat(float64(a), float64(b)) }),
		agreeOne(in, func(d *Decoder) float64 { return d.Float(64) }, eqFloat),
		agreeOne(in, (*Decoder).Bool, eq[bool]),
		agreeValid(in, (*Decoder).Time, eqTime, schemaDateTime),
		agreeOne(in, func(d *Decoder) json.RawMessage { return d.Raw() }, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }),
	)
}

func errorsJoin(errs ...error) error {
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if msgs == nil {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

// differentialInputs are tricky values for every reader.
var differentialInputs = []string{
	``, ` `, `null`, ` null `, `nul`, `true`, `false`, `True`, `tru`, `truee`,
	`0`, `-0`, `00`, `01`, `-01`, `1`, `-1`, `+1`, `1.`, `.5`, `1.5`, `-1.5`, `1e2`, `1E+2`, `1e-2`, `1.0`, `-0.0`,
	`127`, `128`, `-128`, `-129`, `255`, `256`, `32767`, `32768`, `-32769`, `65535`, `65536`,
	`2147483647`, `2147483648`, `-2147483648`, `-2147483649`, `4294967295`, `4294967296`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
	`18446744073709551615`, `18446744073709551616`, `99999999999999999999999`,
	`1e400`, `-1e400`, `1e-400`, `3.4028234663852886e38`, `3.4028235e38`, `3.5e38`, `1e39`, `1.7976931348623157e308`,
	`1.7976931348623159e308`, `4.9e-324`, `2.5e-324`, `0.1`, `123456789012345678901234567890.5`,
	`""`, `"a"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\x"`, `"\u12"`,
	"\"\xff\"", "\"\xed\xa0\x80\"", "\"a\x01\"", "\"\x7f\"", `"\/"`, `"<&>"`, "\"\u2028\"",
	`"2026-11-29T22:30:00Z"`, `"2026-11-29T22:30:00.123456789+05:30"`, `"2026-11-29t22:30:00z"`, `"2026-11-29 22:30:00Z"`,
	`"2026-11-29T22:30:00+24:00"`, `"2026-11-29T22:30:00+23:59"`, `"0000-01-01T00:00:00Z"`, `"2026-02-30T00:00:00Z"`,
	`"2026-11-29T22:30:00.Z"`, `"2026-11-29T22:30:00,5Z"`, `"2026-11-29T24:00:00Z"`, `"2026-11-29T22:30:60Z"`,
	`"2026\u002d11-29T22:30:00Z"`, `"2026-11-29T22:30:00Z`,
	`[]`, `[1,2]`, `[1,]`, `{}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, ` {"a" : [ 1 , {"b":null} ] } `,
	`[1] x`, `"a" "b"`, `1 2`, `{"a":"\u0000"}`, `[[[[]]]]`, `{"":{"":[]}}`,
}

func TestDecoderAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range differentialInputs {
		if err := agree([]byte(in)); err != nil {
			t.Error(err)
		}
	}
}

func TestAppendAgreesWithEncodingJSON(t *testing.T) {
	is := is.New(t)
	marshal := func(v any) string {
		b, err := json.Marshal(v)
		is.NoErr(err)
		return string(b)
	}
	for _, s := range []string{"", "plain", `"quoted" \back\`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"é中😀", "\u2028\u2029", "\xff\xfe", "a\xc3", "\xed\xa0\x80", "\uFFFD", strings.Repeat("x", 1000)} {
		is.Equal(string(AppendString(nil, s)), marshal(s))
		is.Equal(string(AppendBytes(nil, []byte(s))), marshal([]byte(s)))
		raw, _ := json.Marshal(s)
		is.Equal(string(AppendRaw(nil, raw)), marshal(json.RawMessage(raw)))
	}
	is.Equal(string(AppendBytes(nil, nil)), marshal([]byte(nil)))
	is.Equal(string(AppendBytes(nil, []byte{})), marshal([]byte{}))
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 127, -128} {
		is.Equal(string(AppendInt(nil, v)), marshal(v))
	}
	for _, v := range []uint64{0, 1, math.MaxUint64, 255} {
		is.Equal(string(AppendUint(nil, v)), marshal(v))
	}
	is.Equal(string(AppendBool(nil, true)), marshal(true))
	is.Equal(string(AppendBool(nil, false)), marshal(false))
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13,
		1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, 1.0 / 3, 100, 1e-10, 5e-324} {
		is.Equal(string(AppendFloat(nil, v, 64)), marshal(v))
		if f := float32(v); FloatOK(float64(f)) {
			is.Equal(string(AppendFloat(nil, float64(f), 32)), marshal(f))
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		is.True(!FloatOK(v))
		_, err := json.Marshal(v)
		is.True(err != nil)
	}
	for _, tm := range []time.Time{
		{},
		time.Date(2026, 11, 29, 22, 30, 0, 0, time.UTC),
		time.Date(2026, 11, 29, 22, 30, 0, 123456789, time.FixedZone("", 5*3600+1800)),
		time.Date(2026, 11, 29, 22, 30, 0, 120000000, time.FixedZone("X", -8*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		is.True(TimeOK(tm))
		is.Equal(string(AppendTime(nil, tm)), marshal(tm))
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		is.True(!TimeOK(tm))
		_, err := json.Marshal(tm)
		is.True(err != nil)
	}
	for _, raw := range []string{`{ "a" : [ 1 , 2 ] ,"b":"<x> & \u2028 \"y\" "}`, " \n\t1\r ", `"\u003c"`, `null`, "\"\xe2\x80\xa8\"", "\"\xff<\""} {
		is.True(RawOK([]byte(raw)))
		is.Equal(string(AppendRaw(nil, []byte(raw))), marshal(json.RawMessage(raw)))
	}
	is.Equal(string(AppendRaw(nil, nil)), marshal(json.RawMessage(nil)))
	for _, raw := range []string{``, ` `, `{`, `[1,]`, `1 2`, `nul`} {
		is.True(!RawOK([]byte(raw)))
		_, err := json.Marshal(json.RawMessage(raw))
		is.True(err != nil)
		is.Equal(string(AppendRaw(nil, []byte(raw))), "null")
	}
	b, err := AppendFallback([]byte("x"), map[string]int{"b": 2, "a": 1})
	is.NoErr(err)
	is.Equal(string(b), `x{"a":1,"b":2}`)
	b, err = AppendFallback([]byte("x"), func() {})
	is.True(err != nil)
	is.Equal(string(b), "x")
}

// dateTimeFormat checks JSON Schema's "date-time" format with jsonschema/v6.
var dateTimeFormat = compileFormat("date-time")

// dateFormat checks JSON Schema's "date" format with jsonschema/v6.
var dateFormat = compileFormat("date")

func compileFormat(format string) *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("f.json", map[string]any{"type": "string", "format": format}); err != nil {
		panic(err)
	}
	return c.MustCompile("f.json")
}
