package benchdata

import (
	"testing"
)

// BenchmarkInvokeParts measures the two halves of the generated call of BenchmarkInvoke apart: decoding and
// checking the arguments, and encoding the five tickets into a buffer that is reused.
func BenchmarkInvokeParts(b *testing.B) {
	args := []byte(`{"query":"printer toner","limit":10,"include_closed":true,` +
		`"filter":{"statuses":["open","pending"],"assignee":"kim"},` +
		`"since":"2026-03-01T00:00:00Z","tags":["hardware","printer"]}`)
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := typeshiftSearchSearchTicketsDecode(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		results := SampleResults()
		buf := make([]byte, 0, 1024)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			buf = buf[:0]
			for i := range results {
				buf = typeshiftAppendTicket(buf, &results[i], &err)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
