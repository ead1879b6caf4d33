package shapes

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/shapes/geo"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// answerCase is one answering agent of the fixture with the reference its answers are compared with and the
// seeds of its differential test.
type answerCase struct {
	name   string
	answer agent.AnswerType
	// decode is the reference's encoding/json side: the value json.Unmarshal gives, with the schema's defaults.
	decode func(args []byte) (any, error)
	seeds  []string
}

// plain decodes args into a T with encoding/json alone.
func plain[T any](args []byte) (any, error) {
	var v T
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, err
	}
	return v, nil
}

var verdictSeeds = []string{
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["clear"]}`,
	`{"decision":"escalate","priority":"low","confidence":1,"reasons":["a","b","c"],"assignee":"kim","where":{"lat":1,"lng":2}}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["clear"],"assignee":null,"where":null}`,
	`{"decision":"maybe","priority":"high","confidence":0.9,"reasons":["clear"]}`,
	`{"decision":"accept","priority":"urgent","confidence":0.9,"reasons":["clear"]}`,
	`{"decision":"accept","priority":"high","confidence":1.5,"reasons":["clear"]}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":[]}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":[""]}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["a","b","c","d"]}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":null}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["clear"],"assignee":"Kim"}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["clear"],"where":{"lat":91,"lng":0}}`,
	`{"decision":"accept","priority":"high","confidence":0.9,"reasons":["clear"],"extra":true}`,
	`{"decision":"accept","priority":"high","reasons":["clear"]}`,
	`{"decision":"accept","decision":"reject","priority":"high","confidence":0.9,"reasons":["clear"]}`,
	"```json\n{\"decision\":\"accept\"}\n```",
	`The answer is {"decision":"accept"}`,
	``, ` `, `null`, `[]`, `{}`, `"accept"`,
}

var pointSeeds = []string{`{"lat":1,"lng":2}`, `{"lat":-90,"lng":180}`, `{"lat":90.1,"lng":0}`, `{"lat":1}`, `{"lat":"1","lng":2}`, `null`}

var pageSeeds = []string{
	`{"items":[]}`, `{"items":null}`, `{"items":[{"lat":1,"lng":2}],"next":"c","total":{"cents":5},"spent":{"cents":0,"unit":"eur"}}`,
	`{"items":[{"lat":1,"lng":2}],"index":{"a":[1,2]}}`, `{"items":[{"lat":1,"lng":2}],"index":null}`,
	`{"next":"c"}`, `{"items":[{"lat":100,"lng":2}]}`, `{"items":[],"total":{"unit":"eur"}}`,
}

// answerCases returns the fixture's answering agents.
func answerCases() []answerCase {
	return []answerCase{
		{"Judge", (&Judge{}).TypeshiftAnswerType(), plain[Verdict], verdictSeeds},
		{"Echoer", (&Echoer{}).TypeshiftAnswerType(), decodeEcho, differentialSeeds},
		{"Arborist", (&Arborist{}).TypeshiftAnswerType(), plain[Node], differentialTree},
		{"Sorter", (&Sorter{}).TypeshiftAnswerType(), plain[KindsInput], differentialKinds},
		{"Locator", (&Locator{}).TypeshiftAnswerType(), plain[geo.Point], pointSeeds},
		{"Pager", (&Pager{}).TypeshiftAnswerType(), plain[Page[geo.Point]], pageSeeds},
	}
}

// answerSide is the generated side of the differential test of an answer: its decoder, then encoding/json on
// the value, as the reference side encodes its own.
func answerSide(ans agent.AnswerType) func(args []byte) ([]byte, error) {
	return func(args []byte) ([]byte, error) {
		v, err := ans.Decode(args)
		if err != nil {
			if v != nil {
				return nil, errors.New("the decoder returned a value with its error")
			}
			var te *tooljson.Error
			if !errors.As(err, &te) {
				return nil, errors.New("the decoder's error is not a *tooljson.Error: " + err.Error())
			}
			return nil, err
		}
		return json.Marshal(v)
	}
}

// TestAnswerDifferential holds the generated answer decoders to the rule of the tools' decoders: they accept
// exactly what encoding/json into the answer type plus validation against the generated schema accept, with the
// same value, but for the documented exceptions (see differentialOf).
func TestAnswerDifferential(t *testing.T) {
	for _, c := range answerCases() {
		t.Run(c.name, func(t *testing.T) {
			ref := newReference(t, c.answer.Schema, c.decode)
			for _, seed := range c.seeds {
				differentialOf(t, answerSide(c.answer), ref, []byte(seed))
			}
		})
	}
}

// FuzzAnswerDifferential is TestAnswerDifferential with the answer type and the answer chosen by the fuzzer:
// which picks one of the answering agents, whose types cover every shape the generator reads (every scalar and
// container kind, tags and defaults, recursion, named kinds, a type of another package, a generic instance).
func FuzzAnswerDifferential(f *testing.F) {
	cases := answerCases()
	for i, c := range cases {
		for _, seed := range c.seeds {
			f.Add(uint8(i), []byte(seed))
		}
	}
	refs := make([]reference, len(cases))
	for i, c := range cases {
		refs[i] = newReference(f, c.answer.Schema, c.decode)
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		i := int(which) % len(cases)
		differentialOf(t, answerSide(cases[i].answer), refs[i], args)
	})
}

// TestAnswerTypes checks what the generated code says of each answer type: its name, its description, a schema
// that compiles, and the typed decode.
func TestAnswerTypes(t *testing.T) {
	is := is.New(t)
	names := map[string]string{"Judge": "Verdict", "Echoer": "EchoInput", "Arborist": "Node", "Sorter": "KindsInput",
		"Locator": "Point", "Pager": "PageGeoPoint"}
	for _, c := range answerCases() {
		is.Equal(c.answer.Name, names[c.name])
		_, err := schematest.Compile(c.answer.Schema)
		is.NoErr(err)
	}
	judge := (&Judge{}).TypeshiftAnswerType()
	is.Equal(judge.Description, "Verdict is a judge's decision on a ticket.")
	is.Equal(string(judge.Schema), string((&Appeals{}).TypeshiftAnswerType().Schema)) // one type, one schema

	v, err := agent.DecodeAnswer[Verdict](judge, []byte(verdictSeeds[1]))
	is.NoErr(err)
	is.Equal(v.Decision, "escalate")
	is.Equal(*v.Assignee, "kim")
	is.Equal(v.Where.Lng, 2.0)

	_, err = agent.DecodeAnswer[Node](judge, []byte(verdictSeeds[1]))
	is.True(err != nil && strings.Contains(err.Error(), "not shapes.Node")) // the wrong T is an error, not a panic

	for answer, message := range map[string]string{
		verdictSeeds[3]:  `"decision" must be one of accept, reject, escalate`,
		verdictSeeds[5]:  `"confidence" must be at most 1, got 1.5`,
		verdictSeeds[13]: `missing required property "confidence"`,
		verdictSeeds[12]: `unknown property "extra"`,
	} {
		_, err := agent.DecodeAnswer[Verdict](judge, []byte(answer))
		var te *tooljson.Error
		is.True(errors.As(err, &te))
		is.True(strings.Contains(te.Message, message)) // the message tells the model what to fix
	}
}

// TestAnswerProfiles adapts each answer schema to each provider's profile, as a run's native structured output
// will, and checks that answers a model writes against the adapted schema, once restored, are read by the
// generated answer decoder exactly as the reference reads them.
func TestAnswerProfiles(t *testing.T) {
	strict := 0
	for _, c := range answerCases() {
		ref := newReference(t, c.answer.Schema, c.decode)
		for _, p := range []*schemaprofile.Profile{schemaprofile.Gemini, schemaprofile.OpenAIStrict, schemaprofile.Anthropic} {
			t.Run(p.Name+"/"+c.name, func(t *testing.T) {
				adapted, err := p.Adapt(c.answer.Name, c.answer.Schema)
				if p == schemaprofile.OpenAIStrict && err != nil {
					var pe *schemaprofile.Error
					if !errors.As(err, &pe) {
						t.Fatalf("not a *schemaprofile.Error: %v", err)
					}
					return // strict mode cannot describe this shape; the run will choose another mode
				}
				if err != nil {
					t.Fatal(err)
				}
				if p == schemaprofile.OpenAIStrict {
					strict++
				}
				for seed := range int64(40) {
					args, err := chattest.GenerateArguments(adapted.Schema, seed)
					if err != nil && strings.Contains(err.Error(), "nests too deeply") {
						continue
					}
					if err != nil {
						t.Fatalf("no answer for the adapted schema: %v", err)
					}
					differentialOf(t, answerSide(c.answer), ref, adapted.Restore(args))
				}
			})
		}
	}
	if strict < 3 {
		t.Errorf("strict mode describes %d answer types", strict)
	}
}
