package agents_test

import (
	"testing"

	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents"
)

// FuzzSupportSettings checks that the generated settings decoder never panics, and that what it accepts it
// writes back as a document it reads the same way.
func FuzzSupportSettings(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"model":"m","temperature":0.5,"max_iterations":3}`,
		`{"tools":{"list_notes":{"a":1},"github.com/typeshift-go/typeshift/internal/emit/testdata/src/agents.Desk.search":{"limit":5}}}`,
		`{"provider":null,"stop":["x"]}`, `{"concurrent_tools":true,"max_retries":-1}`, `[`, `{"model":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s agents.SupportSettings
		if err := s.UnmarshalJSON(data); err != nil {
			return
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("accepted %s but cannot write it: %v", data, err)
		}
		var again agents.SupportSettings
		if err := again.UnmarshalJSON(out); err != nil {
			t.Fatalf("cannot read its own document %s: %v", out, err)
		}
		out2, err := again.MarshalJSON()
		if err != nil || string(out2) != string(out) {
			t.Fatalf("round trip changed %s into %s (%v)", out, out2, err)
		}
	})
}
