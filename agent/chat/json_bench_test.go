package chat_test

import (
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// BenchmarkMessagesJSON decodes and encodes a 20-message history with the single-pass code (new) and with the
// encoding/json reference it replaced (old).
func BenchmarkMessagesJSON(b *testing.B) {
	msgs := history()
	data, err := chat.MarshalMessages(msgs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode/old", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := refUnmarshalMessages(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/new", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chat.UnmarshalMessages(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/old", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := refMarshalMessages(msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/new", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chat.MarshalMessages(msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
