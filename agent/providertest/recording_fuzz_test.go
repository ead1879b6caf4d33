package providertest_test

import (
	"os"
	"testing"

	"github.com/typeshift-go/typeshift/agent/providertest"
)

// FuzzParseRecording feeds the cassette reader the recordings and what the fuzzer makes of them: it returns a
// recording or an error, never panics, and a recording it returns has interactions with a method and a status.
func FuzzParseRecording(f *testing.F) {
	// two small recordings, one of each format, keep each execution quick
	for _, name := range []string{"testdata/recorded/anthropic/fantasy_simple.yaml", "testdata/recorded/openai/pydantic_image_url.yaml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("version: 2\ninteractions:\n- request: {body: '{}', url: 'https://x/v1/messages', method: POST}\n  response: {body: '{}', code: 200}\n"))
	f.Add([]byte("interactions:\n- request: {parsed_body: {a: 1}, uri: 'https://x/', method: post}\n  response: {body: {string: ''}, status: {code: 500}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := providertest.ParseRecording(data)
		if err != nil {
			return
		}
		for i, in := range rec.Interactions {
			if in.Method == "" && in.Status == 0 {
				t.Errorf("interaction %d: no method and no status", i+1)
			}
			if in.Status < 100 || in.Status > 999 {
				t.Errorf("interaction %d: status %d", i+1, in.Status)
			}
		}
	})
}
