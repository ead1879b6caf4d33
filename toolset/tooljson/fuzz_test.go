package tooljson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestAgreeCanFail makes sure the differential check notices a wrong reader.
func TestAgreeCanFail(t *testing.T) {
	lenient := func(d *Decoder) int64 { d.Skip(); return 0 }
	if agreeOne([]byte(`1.5`), lenient, eq[int64]) == nil {
		t.Fatal("a reader accepting 1.5 as an integer was not caught")
	}
	wrong := func(d *Decoder) string { _ = d.String(); return "x" }
	if agreeOne([]byte(`"y"`), wrong, eq[string]) == nil {
		t.Fatal("a reader returning the wrong value was not caught")
	}
}

func FuzzDecoder(f *testing.F) {
	for _, in := range differentialInputs {
		f.Add([]byte(in))
	}
	f.Add([]byte(`{"query":"q","limit":5,"filter":{"status":"open","labels":["a"],"min_priority":-3,"owner":7},"tags":["x"],"since":"2026-01-02T03:04:05Z","score":0.5,"exact":true,"extra":{"k":[1]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if err := agree(in); err != nil {
			t.Fatal(err)
		}
		// Skip accepts exactly the valid JSON within the depth limit.
		_, err := decodeOne(in, func(d *Decoder) any { d.Skip(); return nil })
		if err != nil && strings.Contains(err.Error(), "nested too deeply") {
			return
		}
		if (err == nil) != json.Valid(in) {
			t.Fatalf("%q: Skip error %v, json.Valid %v", in, err, json.Valid(in))
		}
		// The generated decoder never panics, and what it accepts
		// encoding/json accepts too.
		var x searchArgs
		if err := decodeSearchArgs(in, &x); err == nil {
			var y searchArgs
			if jerr := json.Unmarshal(in, &y); jerr != nil {
				t.Fatalf("%q: accepted, but encoding/json says %v", in, jerr)
			}
			if x.Query != y.Query || x.Limit != y.Limit || !x.Since.Equal(y.Since) {
				t.Fatalf("%q: got %+v, encoding/json %+v", in, x, y)
			}
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\u2028", "\xff", "\"\\\n", "é😀", "\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := AppendString(nil, s)
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, json.Marshal %s", s, got, want)
		}
		// Reading it back gives what encoding/json reads.
		back, derr := decodeOne(got, (*Decoder).String)
		var jback string
		if derr != nil || json.Unmarshal(got, &jback) != nil || back != jback {
			t.Fatalf("%q: read back %q (%v), encoding/json %q", s, back, derr, jback)
		}
		if b := AppendBytes(nil, []byte(s)); !bytes.Equal(b, mustMarshal(t, []byte(s))) {
			t.Fatalf("%q: AppendBytes %s", s, b)
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 0.1, 1e-7, 1e21, 1e20, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN()} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		if !FloatOK(v) {
			if _, err := json.Marshal(v); err == nil {
				t.Fatalf("%v: FloatOK false but json.Marshal succeeds", v)
			}
			return
		}
		if got, want := AppendFloat(nil, v, 64), mustMarshal(t, v); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, json.Marshal %s", v, got, want)
		}
		if v32 := float32(v); FloatOK(float64(v32)) {
			if got, want := AppendFloat(nil, float64(v32), 32), mustMarshal(t, v32); !bytes.Equal(got, want) {
				t.Fatalf("float32 %v: got %s, json.Marshal %s", v32, got, want)
			}
		}
		// The written number reads back exactly.
		out := AppendFloat(nil, v, 64)
		back, err := decodeOne(out, func(d *Decoder) float64 { return d.Float(64) })
		if err != nil || back != v {
			t.Fatalf("%v: read back %v, %v", v, back, err)
		}
	})
}

func FuzzAppendRaw(f *testing.F) {
	for _, s := range []string{`{ "a" : [1, 2] }`, ` null `, `"<\u2028>"`, `[1,]`, ``, "\"\xe2\x80\xa9\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, err := json.Marshal(json.RawMessage(raw))
		ok := RawOK(raw)
		if !ok {
			d := NewDecoder(raw)
			d.Skip()
			d.End()
			if err := d.Err(); err != nil && strings.Contains(err.Error(), "nested too deeply") {
				return
			}
		}
		if ok != (err == nil) {
			t.Fatalf("%q: RawOK %v, json.Marshal error %v", raw, ok, err)
		}
		if ok {
			if got := AppendRaw(nil, raw); !bytes.Equal(got, want) {
				t.Fatalf("%q: got %s, json.Marshal %s", raw, got, want)
			}
		}
	})
}

func FuzzAppendTime(f *testing.F) {
	f.Add(int64(0), int64(0), 0)
	f.Add(int64(1764455400), int64(123456789), 19800)
	f.Add(int64(253402300800), int64(0), -3600)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("", offset))
		want, err := json.Marshal(tm)
		if TimeOK(tm) != (err == nil) {
			t.Fatalf("%v: TimeOK %v, json.Marshal error %v", tm, TimeOK(tm), err)
		}
		if err != nil {
			return
		}
		got := AppendTime(nil, tm)
		if !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, json.Marshal %s", tm, got, want)
		}
		if err := agree(got); err != nil {
			t.Fatal(err)
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
