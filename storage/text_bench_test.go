package storage_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/storage"
)

// benchData returns entry data like a run stores: a response with prose in
// several scripts and a tool call, repeated to about size bytes.
func benchData(size int) []byte {
	part := `{"role":"assistant","author_name":"support","parts":[{"type":"text","text":"Let me look at ticket 4711 — Grüße, 你好, \u00e9 \ud83d\ude00.\nIt says: \"printer on fire\"."},` +
		`{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711,"fields":["title","status"],"limit":1.5e3}}]}`
	var b strings.Builder
	b.WriteString("[")
	for b.Len() < size {
		if b.Len() > 1 {
			b.WriteString(",")
		}
		b.WriteString(part)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func BenchmarkCheckJSON(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}} {
		data := benchData(size.n)
		if !json.Valid(data) || storage.CheckJSON(data) != nil {
			b.Fatal("bench data is not storable JSON")
		}
		b.Run("CheckJSON/"+size.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if storage.CheckJSON(data) != nil {
					b.Fatal("refused")
				}
			}
		})
		b.Run("json.Valid/"+size.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if !json.Valid(data) {
					b.Fatal("refused")
				}
			}
		})
		b.Run("SanitizeJSON/"+size.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_ = storage.SanitizeJSON(data)
			}
		})
	}
}
