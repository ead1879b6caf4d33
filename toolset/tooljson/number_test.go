package tooljson

import (
	"encoding/json"
	"math/big"
	"testing"
)

// ratCompare compares two JSON number literals with math/big, as jsonschema/v6 does.
func ratCompare(a, b string) int {
	x, _ := new(big.Rat).SetString(a)
	y, _ := new(big.Rat).SetString(b)
	return x.Cmp(y)
}

// isNumberLiteral reports whether s is a JSON number and nothing else.
func isNumberLiteral(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && len(s) > 0 && s[0] != ' ' && s[0] != '\t' && s[0] != '\n' &&
		s[0] != '\r' && string(n) == s
}

func TestCompareNumber(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"1", "1"}, {"1.0", "1"}, {"1.00000000000000000001", "1"}, {"0.99999999999999999999", "1"},
		{"-0", "0"}, {"-0.0e5", "0"}, {"10e-1", "1"}, {"0.1e1", "1"}, {"-1", "1"}, {"-2", "-1"}, {"-1e-400", "0"},
		{"1e-400", "0"}, {"100", "1e2"}, {"1e2", "99.999999999999999999"}, {"0.000", "-0"}, {"123.456", "123.4560"},
		{"1.7976931348623157e308", "1.7976931348623158e308"}, {"5e-324", "4.9e-324"}, {"0.1", "0.10000000000000001"},
	} {
		for _, p := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
			d := NewDecoder([]byte(p[0]))
			d.Float(64)
			if got, want := d.CompareNumber(p[1]), ratCompare(p[0], p[1]); got != want {
				t.Errorf("%s vs %s: got %d, want %d", p[0], p[1], got, want)
			}
		}
	}
}

func FuzzCompareNumber(f *testing.F) {
	f.Add("1.00000000000000000001", "1")
	f.Add("-0.0", "0e10")
	f.Add("12.5e-3", "0.0125")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !isNumberLiteral(a) || !isNumberLiteral(b) || len(a) > 60 || len(b) > 60 {
			return
		}
		d := NewDecoder([]byte(a))
		d.Float(64)
		if d.Err() != nil {
			return
		}
		if got, want := d.CompareNumber(b), ratCompare(a, b); got != want {
			t.Fatalf("%s vs %s: got %d, want %d", a, b, got, want)
		}
	})
}
