package benchdata_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset/internal/benchdata"
)

// benchAnswer is a typical triage answer: every property set.
const benchAnswer = `{"status":"pending","priority":2,"confidence":0.87,` +
	`"summary":"The printer on floor 3 prints blank pages since the toner change; likely a seating problem.",` +
	`"labels":["hardware","printer","floor-3"],"route":{"team":"hardware","assignee":"kim"},"duplicate":4711}`

// The three ways to read an answer that the benchmark compares.
var answerPaths = []struct {
	name   string
	decode func(ans agent.AnswerType, s *jsonschema.Schema, data []byte) (benchdata.Verdict, error)
}{
	{"generated", func(ans agent.AnswerType, _ *jsonschema.Schema, data []byte) (benchdata.Verdict, error) {
		return agent.DecodeAnswer[benchdata.Verdict](ans, data)
	}},
	{"encoding_json", func(_ agent.AnswerType, _ *jsonschema.Schema, data []byte) (benchdata.Verdict, error) {
		var v benchdata.Verdict
		err := json.Unmarshal(data, &v)
		return v, err
	}},
	{"encoding_json+schema", func(_ agent.AnswerType, s *jsonschema.Schema, data []byte) (benchdata.Verdict, error) {
		var v benchdata.Verdict
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return v, err
		}
		if err := s.Validate(doc); err != nil {
			return v, err
		}
		err = json.Unmarshal(data, &v)
		return v, err
	}},
}

// TestAnswerPathsAgree checks that the benchmarked paths read the same value, so that they measure the same work,
// and that the checking paths refuse the same wrong answers.
func TestAnswerPathsAgree(t *testing.T) {
	is := is.New(t)
	ans := (&benchdata.Triage{}).TypeshiftAnswerType()
	s, err := schematest.Compile(ans.Schema)
	is.NoErr(err)
	want, err := answerPaths[0].decode(ans, s, []byte(benchAnswer))
	is.NoErr(err)
	is.Equal(want.Route.Assignee, "kim")
	is.Equal(*want.Duplicate, 4711)
	for _, p := range answerPaths[1:] {
		got, err := p.decode(ans, s, []byte(benchAnswer))
		is.NoErr(err)
		is.Equal(got.Summary, want.Summary)
		is.Equal(got.Labels, want.Labels)
		is.Equal(*got.Route, *want.Route)
		is.Equal(*got.Duplicate, *want.Duplicate)
		is.Equal(got.Confidence, want.Confidence)
	}
	for _, bad := range []string{
		`{"status":"done","priority":2,"confidence":0.5,"summary":"x"}`,
		`{"status":"open","priority":9,"confidence":0.5,"summary":"x"}`,
		`{"status":"open","priority":2,"summary":"x"}`,
		`{"status":"open","priority":2,"confidence":0.5,"summary":"x","route":{"team":"sales"}}`,
	} {
		_, err := answerPaths[0].decode(ans, s, []byte(bad))
		is.True(err != nil)
		_, err = answerPaths[2].decode(ans, s, []byte(bad))
		is.True(err != nil)
	}
}

// BenchmarkAnswer reads one typical answer three ways in one run: the generated decoder (through the typed
// agent.DecodeAnswer a run uses), encoding/json into the same struct (types only, no constraints), and
// encoding/json after validating against the generated schema with jsonschema/v6 (the same checks as the
// generated decoder; the schema is compiled once, outside the loop).
func BenchmarkAnswer(b *testing.B) {
	ans := (&benchdata.Triage{}).TypeshiftAnswerType()
	s, err := schematest.Compile(ans.Schema)
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(benchAnswer)
	for _, p := range answerPaths {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := p.decode(ans, s, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
