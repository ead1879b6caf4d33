package tooljson

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// readCase reads in with read, then End, and expects want or the error message.
type readCase struct {
	name string
	in   string
	want any
	err  string
}

func runRead(t *testing.T, read func(d *Decoder) any, cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			d := NewDecoder([]byte(tc.in))
			got := read(&d)
			d.End()
			if tc.err != "" {
				is.True(d.Err() != nil) // an error is expected
				is.Equal(d.Err().Error(), tc.err)
				var e *Error
				is.True(errors.As(d.Err(), &e))
				return
			}
			is.NoErr(d.Err())
			is.Equal(got, tc.want)
		})
	}
}

func TestString(t *testing.T) {
	runRead(t, func(d *Decoder) any { return d.String() }, []readCase{
		{name: "plain", in: `"hello"`, want: "hello"},
		{name: "empty", in: ` "" `, want: ""},
		{name: "escapes", in: `"a\"b\\c\/d\b\f\n\r\t"`, want: "a\"b\\c/d\b\f\n\r\t"},
		{name: "unicode escape", in: `"\u00e9\u4e2D"`, want: "é中"},
		{name: "surrogate pair", in: `"\ud83d\ude00"`, want: "😀"},
		{name: "lone high surrogate", in: `"\ud83dx"`, want: "\uFFFDx"},
		{name: "lone low surrogate", in: `"\ude00"`, want: "\uFFFD"},
		{name: "high then non-surrogate escape", in: `"\ud83d\u0041"`, want: "\uFFFDA"},
		{name: "two highs", in: `"\ud83d\ud83d\ude00"`, want: "\uFFFD😀"},
		{name: "raw utf8", in: `"héllo 😀"`, want: "héllo 😀"},
		{name: "invalid utf8", in: "\"a\xffb\xc3\"", want: "a\uFFFDb\uFFFD"},
		{name: "encoded surrogate is invalid", in: "\"\xed\xa0\x80\"", want: "\uFFFD\uFFFD\uFFFD"},
		{name: "number", in: `12`, err: `arguments must be a string, got number`},
		{name: "null", in: `null`, err: `arguments must be a string, got null`},
		{name: "object", in: `{}`, err: `arguments must be a string, got object`},
		{name: "bad escape", in: `"a\qb"`, err: `invalid JSON at offset 2: invalid escape '\q' in string`},
		{name: "short unicode escape", in: `"\u12"`, err: `invalid JSON at offset 1: invalid \u escape in string`},
		{name: "bad hex", in: `"\u12g4"`, err: `invalid JSON at offset 1: invalid \u escape in string`},
		{name: "control character", in: "\"a\nb\"", err: `invalid JSON at offset 2: control character byte 0x0a in string (escape it)`},
		{name: "unterminated", in: `"abc`, err: `invalid JSON at offset 4: unexpected end of input`},
		{name: "unterminated escape", in: `"abc\`, err: `invalid JSON at offset 5: unexpected end of input`},
		{name: "empty input", in: ``, err: `invalid JSON at offset 0: unexpected end of input`},
		{name: "trailing data", in: `"a" "b"`, err: `invalid JSON at offset 4: unexpected data after the top-level value`},
		{name: "garbage", in: `hello`, err: `invalid JSON at offset 0: unexpected character 'h'`},
	})
}

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		bits int
		readCase
	}{
		{8, readCase{name: "zero", in: `0`, want: int64(0)}},
		{8, readCase{name: "minus zero", in: `-0`, want: int64(0)}},
		{8, readCase{name: "max8", in: `127`, want: int64(127)}},
		{8, readCase{name: "min8", in: `-128`, want: int64(-128)}},
		{8, readCase{name: "over8", in: `128`, err: `arguments must be an integer between -128 and 127, got 128`}},
		{8, readCase{name: "300", in: `300`, err: `arguments must be an integer between -128 and 127, got 300`}},
		{8, readCase{name: "under8", in: `-129`, err: `arguments must be an integer between -128 and 127, got -129`}},
		{16, readCase{name: "max16", in: `32767`, want: int64(32767)}},
		{16, readCase{name: "over16", in: `32768`, err: `arguments must be an integer between -32768 and 32767, got 32768`}},
		{32, readCase{name: "min32", in: `-2147483648`, want: int64(-2147483648)}},
		{32, readCase{name: "over32", in: `2147483648`, err: `arguments must be an integer between -2147483648 and 2147483647, got 2147483648`}},
		{64, readCase{name: "max64", in: `9223372036854775807`, want: int64(9223372036854775807)}},
		{64, readCase{name: "min64", in: `-9223372036854775808`, want: int64(-9223372036854775808)}},
		{64, readCase{name: "over64", in: `9223372036854775808`, err: `arguments must be an integer between -9223372036854775808 and 9223372036854775807, got 9223372036854775808`}},
		{64, readCase{name: "under64", in: `-9223372036854775809`, err: `arguments must be an integer between -9223372036854775808 and 9223372036854775807, got -9223372036854775809`}},
		{64, readCase{name: "huge", in: `123456789012345678901234567890123456789012345678901234567890`, err: `arguments must be an integer between -9223372036854775808 and 9223372036854775807, got 1234567890123456789012345678901234567890…`}},
		{64, readCase{name: "fraction", in: `1.5`, err: `arguments must be an integer, got 1.5`}},
		{64, readCase{name: "integral fraction", in: `1.0`, err: `arguments must be an integer, got 1.0`}},
		{64, readCase{name: "exponent", in: `1e2`, err: `arguments must be an integer, got 1e2`}},
		{64, readCase{name: "string", in: `"1"`, err: `arguments must be an integer, got string`}},
		{64, readCase{name: "bool", in: `true`, err: `arguments must be an integer, got boolean`}},
		{64, readCase{name: "null", in: `null`, err: `arguments must be an integer, got null`}},
		{64, readCase{name: "leading zero", in: `01`, err: `invalid JSON at offset 1: unexpected data after the top-level value`}},
		{64, readCase{name: "plus", in: `+1`, err: `invalid JSON at offset 0: unexpected character '+'`}},
		{64, readCase{name: "minus alone", in: `-`, err: `invalid JSON at offset 1: unexpected end of input`}},
		{64, readCase{name: "minus letter", in: `-x`, err: `invalid JSON at offset 1: invalid number: expected a digit, got 'x'`}},
		{64, readCase{name: "dot alone", in: `1.`, err: `invalid JSON at offset 2: unexpected end of input`}},
		{64, readCase{name: "dot letter", in: `1.e5`, err: `invalid JSON at offset 2: invalid number: expected a digit, got 'e'`}},
		{64, readCase{name: "bad exponent", in: `1e+`, err: `invalid JSON at offset 3: unexpected end of input`}},
		{64, readCase{name: "bad bits means 64", in: `-5`, want: int64(-5)}},
	} {
		bits := tc.bits
		runRead(t, func(d *Decoder) any { return d.Int(bits) }, []readCase{tc.readCase})
	}
}

func TestUint(t *testing.T) {
	for _, tc := range []struct {
		bits int
		readCase
	}{
		{8, readCase{name: "max8", in: `255`, want: uint64(255)}},
		{8, readCase{name: "over8", in: `256`, err: `arguments must be an integer between 0 and 255, got 256`}},
		{8, readCase{name: "negative", in: `-1`, err: `arguments must be an integer between 0 and 255, got -1`}},
		{8, readCase{name: "minus zero", in: `-0`, err: `arguments must be an integer between 0 and 255, got -0`}},
		{16, readCase{name: "max16", in: `65535`, want: uint64(65535)}},
		{32, readCase{name: "over32", in: `4294967296`, err: `arguments must be an integer between 0 and 4294967295, got 4294967296`}},
		{64, readCase{name: "max64", in: `18446744073709551615`, want: uint64(18446744073709551615)}},
		{64, readCase{name: "over64", in: `18446744073709551616`, err: `arguments must be an integer between 0 and 18446744073709551615, got 18446744073709551616`}},
		{64, readCase{name: "fraction", in: `2.5`, err: `arguments must be an integer, got 2.5`}},
		{64, readCase{name: "array", in: `[1]`, err: `arguments must be an integer, got array`}},
	} {
		bits := tc.bits
		runRead(t, func(d *Decoder) any { return d.Uint(bits) }, []readCase{tc.readCase})
	}
}

func TestFloat(t *testing.T) {
	runRead(t, func(d *Decoder) any { return d.Float(64) }, []readCase{
		{name: "int", in: `3`, want: 3.0},
		{name: "fraction", in: `-0.25`, want: -0.25},
		{name: "exponent", in: `1.5E+3`, want: 1500.0},
		{name: "tiny underflows to zero", in: `1e-400`, want: 0.0},
		{name: "max", in: `1.7976931348623157e308`, want: 1.7976931348623157e308},
		{name: "overflow", in: `1e400`, err: `arguments must be a number between -1.7976931348623157e+308 and 1.7976931348623157e+308, got 1e400`},
		{name: "string", in: `"1.5"`, err: `arguments must be a number, got string`},
		{name: "nan literal", in: `NaN`, err: `invalid JSON at offset 0: unexpected character 'N'`},
	})
	runRead(t, func(d *Decoder) any { return d.Float(32) }, []readCase{
		{name: "float32 rounding", in: `0.1`, want: float64(float32(0.1))},
		{name: "float32 max", in: `3.4028234663852886e38`, want: float64(float32(3.4028234663852886e38))},
		{name: "float32 overflow", in: `1e39`, err: `arguments must be a number between -3.4028235e+38 and 3.4028235e+38, got 1e39`},
	})
}

func TestBool(t *testing.T) {
	runRead(t, func(d *Decoder) any { return d.Bool() }, []readCase{
		{name: "true", in: `true`, want: true},
		{name: "false", in: ` false `, want: false},
		{name: "string", in: `"true"`, err: `arguments must be a boolean, got string`},
		{name: "number", in: `1`, err: `arguments must be a boolean, got number`},
		{name: "truncated", in: `tru`, err: `invalid JSON at offset 3: unexpected end of input`},
		{name: "misspelt", in: `fals3`, err: `invalid JSON at offset 4: unexpected character '3'`},
		{name: "longer", in: `truex`, err: `invalid JSON at offset 4: unexpected data after the top-level value`},
	})
}

func TestNull(t *testing.T) {
	runRead(t, func(d *Decoder) any { return d.Null() }, []readCase{
		{name: "null", in: `null`, want: true},
		{name: "bad null", in: `nul`, err: `invalid JSON at offset 3: unexpected end of input`},
		{name: "not null leaves value", in: `1`, err: `invalid JSON at offset 0: unexpected data after the top-level value`},
	})
	runRead(t, func(d *Decoder) any { return [2]any{d.Null(), d.Int(64)} }, []readCase{
		{name: "then int", in: `7`, want: [2]any{false, int64(7)}},
	})
}

func TestBytes(t *testing.T) {
	runRead(t, func(d *Decoder) any { return string(d.Bytes()) }, []readCase{
		{name: "base64", in: `"aGVsbG8="`, want: "hello"},
		{name: "empty", in: `""`, want: ""},
		{name: "escaped", in: `"aGVs\u0062G8="`, want: "hello"},
		{name: "newlines ignored", in: `"aGVs\nbG8="`, want: "hello"},
		{name: "missing padding", in: `"aGVsbG8"`, err: `arguments must be a base64 string (standard alphabet, padded), got invalid data at byte 4`},
		{name: "url alphabet", in: `"_-8="`, err: `arguments must be a base64 string (standard alphabet, padded), got invalid data at byte 0`},
		{name: "number", in: `5`, err: `arguments must be a base64 string, got number`},
	})
}

func TestTime(t *testing.T) {
	want := time.Date(2026, 11, 29, 22, 30, 0, 123000000, time.UTC)
	runRead(t, func(d *Decoder) any { return d.Time().UTC() }, []readCase{
		{name: "utc", in: `"2026-11-29T22:30:00.123Z"`, want: want},
		{name: "offset", in: `"2026-11-30T00:30:00.123+02:00"`, want: want},
		{name: "date only", in: `"2026-11-29"`, err: `arguments must be a date-time string in RFC 3339 format, such as "2006-01-02T15:04:05Z", got "2026-11-29"`},
		{name: "escaped", in: `"2026\u002d11-29T22:30:00Z"`, err: `arguments must be a date-time string in RFC 3339 format, such as "2006-01-02T15:04:05Z", got "2026\u002d11-29T22:30:00Z"`},
		{name: "number", in: `1700000000`, err: `arguments must be a date-time string (RFC 3339), got number`},
		{name: "truncated", in: `"2026-11-29T22:30:00Z`, err: `invalid JSON at offset 21: unexpected end of input`},
	})
}

func TestRawAndSkip(t *testing.T) {
	runRead(t, func(d *Decoder) any { return string(d.Raw()) }, []readCase{
		{name: "object", in: ` {"a": [1, 2, {"b": null}], "c": "\u0041"} `, want: `{"a": [1, 2, {"b": null}], "c": "\u0041"}`},
		{name: "empty containers", in: `[{}, [], [[]]]`, want: `[{}, [], [[]]]`},
		{name: "scalar", in: `-1.5e3`, want: `-1.5e3`},
		{name: "null", in: `null`, want: `null`},
		{name: "trailing comma array", in: `[1,]`, err: `invalid JSON at offset 3: unexpected character ']'`},
		{name: "trailing comma object", in: `{"a":1,}`, err: `invalid JSON at offset 7: expected a string for an object key, got '}'`},
		{name: "missing colon", in: `{"a" 1}`, err: `invalid JSON at offset 5: expected ':' after object key, got '1'`},
		{name: "missing comma", in: `[1 2]`, err: `invalid JSON at offset 3: expected ',' or ']' after array element, got '2'`},
		{name: "missing comma object", in: `{"a":1 "b":2}`, err: `invalid JSON at offset 7: expected ',' or '}' after object member, got '"'`},
		{name: "unclosed", in: `[1, [2`, err: `invalid JSON at offset 6: unexpected end of input`},
		{name: "key not string", in: `{a:1}`, err: `invalid JSON at offset 1: expected a string for an object key, got 'a'`},
		{name: "mismatched close", in: `[1}`, err: `invalid JSON at offset 2: expected ',' or ']' after array element, got '}'`},
		{name: "deep but allowed", in: strings.Repeat("[", 64) + strings.Repeat("]", 64), want: strings.Repeat("[", 64) + strings.Repeat("]", 64)},
		{name: "too deep", in: strings.Repeat("[", 65) + strings.Repeat("]", 65), err: `invalid JSON at offset 64: nested too deeply (more than 64 levels)`},
		{name: "very deep", in: strings.Repeat(`{"a":[`, 100000), err: `invalid JSON at offset 192: nested too deeply (more than 64 levels)`},
	})
	runRead(t, func(d *Decoder) any { d.Skip(); return nil }, []readCase{
		{name: "skip", in: `{"a":[true,false,null,"x",{"y":{}}]}`, want: nil},
		{name: "skip bad", in: `{"a":[tru]}`, err: `invalid JSON at offset 9: unexpected character ']'`},
	})
}

func TestFallback(t *testing.T) {
	runRead(t, func(d *Decoder) any {
		var m map[string]int
		d.Fallback(&m)
		return m
	}, []readCase{
		{name: "map", in: `{"a":1,"b":2}`, want: map[string]int{"a": 1, "b": 2}},
		{name: "wrong type", in: `{"a":"x"}`, err: `arguments is invalid: cannot unmarshal string into Go value of type int`},
		{name: "bad json", in: `{"a":}`, err: `invalid JSON at offset 5: unexpected character '}'`},
	})
}

func TestObjectAndArrayErrors(t *testing.T) {
	readAll := func(d *Decoder) any {
		var keys []string
		if d.Object() {
			for {
				k, ok := d.Field()
				if !ok {
					break
				}
				keys = append(keys, string(k))
				if d.Array() {
					for d.Elem() {
						d.Int(64)
					}
				}
			}
		}
		return keys
	}
	runRead(t, readAll, []readCase{
		{name: "ok", in: `{"a":[1,2],"b":[]}`, want: []string{"a", "b"}},
		{name: "escaped key", in: `{"\u0061\n":[]}`, want: []string{"a\n"}},
		{name: "not object", in: `"x"`, err: `arguments must be an object, got string`},
		{name: "null object", in: `null`, err: `arguments must be an object, got null`},
		{name: "not array", in: `{"a":{}}`, err: `"a" must be an array, got object`},
		{name: "element type", in: `{"a":[1,"x"]}`, err: `"a[1]" must be an integer, got string`},
		{name: "escaped key in path", in: `{"x\"y":[true]}`, err: `"x\"y[0]" must be an integer, got boolean`},
		{name: "trailing comma", in: `{"a":[],}`, err: `invalid JSON at offset 8: expected a string for an object key, got '}'`},
		{name: "array trailing comma", in: `{"a":[1,]}`, err: `invalid JSON at offset 8: unexpected character ']'`},
		{name: "truncated", in: `{"a":[1`, err: `invalid JSON at offset 7: unexpected end of input`},
		{name: "truncated key", in: `{"a`, err: `invalid JSON at offset 3: unexpected end of input`},
		{name: "no colon", in: `{"a"}`, err: `invalid JSON at offset 4: expected ':' after object key, got '}'`},
		{name: "trailing", in: `{} x`, err: `invalid JSON at offset 3: unexpected data after the top-level value`},
	})
}

func TestDepthLimit(t *testing.T) {
	// nest opens arrays as deep as the input goes, as generated code for a
	// recursive type would.
	var nest func(d *Decoder) int
	nest = func(d *Decoder) int {
		n := 0
		if d.Array() {
			for d.Elem() {
				n = max(n, 1+nest(d))
			}
		}
		return n
	}
	runRead(t, func(d *Decoder) any { return nest(d) }, []readCase{
		{name: "64 levels", in: strings.Repeat("[", 64) + strings.Repeat("]", 64), want: 63},
		{name: "65 levels", in: strings.Repeat("[", 65) + strings.Repeat("]", 65), err: `invalid JSON at offset 64: nested too deeply (more than 64 levels)`},
	})
	// Raw inside 60 decoder levels may nest only 4 more.
	runRead(t, func(d *Decoder) any {
		for i := 0; i < 60; i++ {
			d.Array()
			d.Elem()
		}
		raw := string(d.Raw())
		for i := 0; i < 60; i++ {
			d.Elem()
		}
		return raw
	}, []readCase{
		{name: "raw within limit", in: strings.Repeat("[", 64) + strings.Repeat("]", 64), want: "[[[[]]]]"},
		{name: "raw over limit", in: strings.Repeat("[", 65) + strings.Repeat("]", 65), err: `invalid JSON at offset 64: nested too deeply (more than 64 levels)`},
	})
}

func TestGeneratedDecoder(t *testing.T) {
	const since = `"since":"2026-01-02T03:04:05Z"`
	for _, tc := range []struct {
		name, in, err string
	}{
		{name: "minimal", in: `{"query":"q",` + since + `}`},
		{name: "full", in: `{"query":"q","limit":5,"filter":{"status":"open","labels":["a","b"],"min_priority":-3,"owner":7},"tags":["x"],` + since + `,"score":0.5,"exact":true,"extra":{"k":[1]}}`},
		{name: "nulls for optional", in: `{"query":"q","limit":null,"filter":null,"tags":null,"score":null,"exact":null,` + since + `}`},
		{name: "missing query", in: `{` + since + `}`, err: `missing required property "query"`},
		{name: "missing nested", in: `{"query":"q","filter":{},` + since + `}`, err: `missing required property "filter.status"`},
		{name: "enum", in: `{"query":"q","filter":{"status":"done"},` + since + `}`, err: `"filter.status" must be one of open, pending, closed`},
		{name: "max", in: `{"query":"q","limit":500,` + since + `}`, err: `"limit" must be at most 100, got 500`},
		{name: "min", in: `{"query":"q","limit":0,` + since + `}`, err: `"limit" must be at least 1, got 0`},
		{name: "range nested", in: `{"query":"q","filter":{"status":"open","min_priority":300},` + since + `}`, err: `"filter.min_priority" must be an integer between -128 and 127, got 300`},
		{name: "wrong type nested", in: `{"query":"q","filter":{"status":"open","labels":["a",2]},` + since + `}`, err: `"filter.labels[1]" must be a string, got number`},
		{name: "filter not object", in: `{"query":"q","filter":"open",` + since + `}`, err: `"filter" must be an object, got string`},
		{name: "unknown", in: `{"qeury":"q"}`, err: `unknown property "qeury"; allowed: query, limit, filter, tags, since, score, exact, extra`},
		{name: "unknown nested", in: `{"query":"q","filter":{"state":"open"}}`, err: `unknown property "filter.state"; allowed: status, labels, min_priority, owner`},
		{name: "required null", in: `{"query":null}`, err: `"query" must be a string, got null`},
		{name: "bad time", in: `{"query":"q","since":"yesterday"}`, err: `"since" must be a date-time string in RFC 3339 format, such as "2006-01-02T15:04:05Z", got "yesterday"`},
		{name: "not an object", in: `["query"]`, err: `arguments must be an object, got array`},
		{name: "truncated", in: `{"query":"q","limit":5`, err: `invalid JSON at offset 22: unexpected end of input`},
		{name: "trailing", in: `{"query":"q",` + since + `}}`, err: `invalid JSON at offset 44: unexpected data after the top-level value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			var x searchArgs
			err := decodeSearchArgs([]byte(tc.in), &x)
			if tc.err != "" {
				is.True(err != nil) // an error is expected
				is.Equal(err.Error(), tc.err)
				return
			}
			is.NoErr(err)
			// The result agrees with encoding/json, which has no constraints.
			var want searchArgs
			is.NoErr(jsonUnmarshal([]byte(tc.in), &want))
			is.Equal(x.Query, want.Query)
			is.Equal(x.Limit, want.Limit)
			is.Equal(x.Filter, want.Filter)
			is.Equal(x.Tags, want.Tags)
			is.True(x.Since.Equal(want.Since))
			is.Equal(x.Score, want.Score)
			is.Equal(x.Exact, want.Exact)
			is.Equal(string(x.Extra), string(want.Extra))
			// And encoding it back gives json.Marshal's bytes.
			out, err := jsonMarshal(&x)
			is.NoErr(err)
			is.Equal(string(appendSearchArgs(nil, &x)), string(out))
		})
	}
}

func TestErrorPaths(t *testing.T) {
	is := is.New(t)
	var x searchArgs
	err := decodeSearchArgs([]byte(`{"query":"q","filter":{"status":"open","labels":["a",2]}}`), &x)
	var e *Error
	is.True(errors.As(err, &e))
	is.Equal(e.Path, "filter.labels[1]")
	err = decodeSearchArgs([]byte(`{"filter":{"status":"open"}}`), &x)
	is.True(errors.As(err, &e))
	is.Equal(e.Path, "query")
}

func TestStickyError(t *testing.T) {
	is := is.New(t)
	d := NewDecoder([]byte(`{"a":"x","b":1}`))
	is.True(d.Object())
	k, ok := d.Field()
	is.True(ok)
	is.Equal(string(k), "a")
	is.Equal(d.Path(), "a")
	d.Int(64)
	first := d.Err()
	d.Failf("must be something else")
	d.Missing("z")
	d.Unknown([]byte("q"), "")
	_, ok = d.Field()
	is.True(!ok)
	is.True(!d.Object())
	is.True(!d.Elem())
	is.Equal(d.String(), "")
	d.End()
	is.Equal(d.Err(), first)
	is.Equal(d.Err().Error(), `"a" must be an integer, got string`)

	d.Reset([]byte(`5`))
	is.NoErr(d.Err())
	is.Equal(d.Int(8), int64(5))
	d.End()
	is.NoErr(d.Err())
}

func TestMisuse(t *testing.T) {
	is := is.New(t)
	d := NewDecoder([]byte(`[1]`))
	_, ok := d.Field()
	is.True(!ok)
	is.True(d.Err() != nil)
	d = NewDecoder([]byte(`{}`))
	is.True(!d.Elem())
	is.True(d.Err() != nil)
	d = NewDecoder([]byte(`[1]`))
	d.Array()
	d.End()
	is.True(d.Err() != nil)
}

func TestFailfAtRoot(t *testing.T) {
	is := is.New(t)
	d := NewDecoder([]byte(`3`))
	v := d.Int(64)
	d.Failf("must be even, got %d", v)
	is.Equal(d.Err().Error(), `arguments must be even, got 3`)
}
