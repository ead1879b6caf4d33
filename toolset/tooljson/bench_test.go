package tooljson

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/matryer/is"
)

// benchArgs is a realistic argument object a model sends to a search tool.
var benchArgs = []byte(`{
  "query": "refund requests from enterprise customers",
  "limit": 25,
  "filter": {"status": "open", "labels": ["billing", "priority"], "min_priority": 2, "owner": 4711},
  "tags": ["q4", "emea"],
  "since": "2026-10-01T00:00:00Z",
  "score": 0.75,
  "exact": false
}`)

func BenchmarkDecodeArgs(b *testing.B) {
	b.Run("tooljson", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchArgs)))
		for b.Loop() {
			var x searchArgs
			if err := decodeSearchArgs(benchArgs, &x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchArgs)))
		for b.Loop() {
			var x searchArgs
			if err := json.Unmarshal(benchArgs, &x); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeResult(b *testing.B) {
	var x searchArgs
	if err := decodeSearchArgs(benchArgs, &x); err != nil {
		b.Fatal(err)
	}
	b.Run("tooljson", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf = appendSearchArgs(buf[:0], &x)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&x); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeError(b *testing.B) {
	in := []byte(`{"query":"q","filter":{"status":"open","labels":["a",2]}}`)
	b.ReportAllocs()
	for b.Loop() {
		var x searchArgs
		if decodeSearchArgs(in, &x) == nil {
			b.Fatal("no error")
		}
	}
}

// TestDecoderAllocations pins down what the decoder allocates: nothing but
// the strings and slices it returns. Each case builds its decoder itself, as
// generated code does, so that it can stay on the stack.
func TestDecoderAllocations(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		read func(in []byte) error
		want float64
	}{
		{"scalars", `{"a":[1,-2.5,true,null,{"b":"skip me"}],"c":"2026-10-01T00:00:00Z","d":18446744073709551615}`, func(in []byte) error {
			d := NewDecoder(in)
			d.Object()
			d.Field()
			d.Array()
			d.Elem()
			d.Int(64)
			d.Elem()
			d.Float(64)
			d.Elem()
			d.Bool()
			d.Elem()
			d.Null()
			d.Elem()
			d.Skip()
			d.Elem()
			d.Field()
			d.Time()
			d.Field()
			d.Uint(64)
			d.Field()
			d.End()
			return d.Err()
		}, 0},
		{"plain string", `"hello, world"`, func(in []byte) error {
			d := NewDecoder(in)
			_ = d.String()
			d.End()
			return d.Err()
		}, 1},
		{"escaped string", `"hello,\nworld \u00e9"`, func(in []byte) error {
			d := NewDecoder(in)
			_ = d.String()
			d.End()
			return d.Err()
		}, 1},
		{"empty string", `""`, func(in []byte) error {
			d := NewDecoder(in)
			_ = d.String()
			d.End()
			return d.Err()
		}, 0},
		{"raw", `{"a": [1, 2]}`, func(in []byte) error {
			d := NewDecoder(in)
			d.Raw()
			d.End()
			return d.Err()
		}, 1},
		{"bytes", `"aGVsbG8="`, func(in []byte) error {
			d := NewDecoder(in)
			d.Bytes()
			d.End()
			return d.Err()
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			in := []byte(tc.in)
			is.NoErr(tc.read(in))
			is.Equal(testing.AllocsPerRun(100, func() { _ = tc.read(in) }), tc.want)
		})
	}
}

// TestEncoderAllocations checks that the Append functions allocate nothing
// when the buffer is large enough.
func TestEncoderAllocations(t *testing.T) {
	is := is.New(t)
	buf := make([]byte, 0, 4096)
	tm := time.Date(2026, 11, 29, 22, 30, 0, 123, time.FixedZone("", 3600))
	raw := []byte(`{"a": [1, "<b>"]}`)
	got := testing.AllocsPerRun(100, func() {
		b := AppendString(buf[:0], "héllo <world>\n\xff")
		b = AppendBytes(b, []byte("bytes"))
		b = AppendInt(b, -42)
		b = AppendUint(b, 42)
		b = AppendFloat(b, 1.5e-9, 64)
		b = AppendBool(b, true)
		b = AppendTime(b, tm)
		_ = AppendRaw(b, raw)
		_ = FloatOK(1) && TimeOK(tm) && RawOK(raw)
	})
	is.Equal(got, 0.0)
}
