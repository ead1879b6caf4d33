package agent

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

type answerVerdict struct{ Decision string }

type answering struct{ Agent }

func (a *answering) Declare() { Returns[answerVerdict](a) }

// TestReturnsRecordsTheTypeName checks that Returns records only the answer type's name, for the run to compare
// with the generated AnswerType.
func TestReturnsRecordsTheTypeName(t *testing.T) {
	is := is.New(t)
	a := &answering{}
	a.Declare()
	is.Equal(a.answerTypes(), []string{"agent.answerVerdict"})
}

// TestDecodeAnswer checks the typed helper: the value as T, the decoder's own error unchanged, and errors rather
// than panics for a wrong T or a missing decoder.
func TestDecodeAnswer(t *testing.T) {
	is := is.New(t)
	bad := &tooljson.Error{Message: `missing required property "decision"`}
	ans := AnswerType{Name: "answerVerdict", Decode: func(data []byte) (any, error) {
		if string(data) == "{}" {
			return nil, bad
		}
		return answerVerdict{Decision: string(data)}, nil
	}}
	v, err := DecodeAnswer[answerVerdict](ans, []byte("close"))
	is.NoErr(err)
	is.Equal(v.Decision, "close")

	_, err = DecodeAnswer[answerVerdict](ans, []byte("{}"))
	is.True(errors.Is(err, bad)) // the decoder's message reaches the caller as it is

	_, err = DecodeAnswer[*answerVerdict](ans, []byte("close"))
	is.Equal(err.Error(), "agent: the answer type is answerVerdict, not *agent.answerVerdict")

	_, err = DecodeAnswer[answerVerdict](AnswerType{Name: "x"}, []byte("close"))
	is.True(err != nil)
}

type generatedAnswer struct{ answering }

func (a *generatedAnswer) TypeshiftAnswerType() AnswerType {
	return AnswerType{Name: "answerVerdict", Schema: []byte(`{"type":"object"}`), Decode: func([]byte) (any, error) { return answerVerdict{}, nil }}
}

type textOnly struct{ Agent }

func (a *textOnly) Declare() {}

type staleAnswer struct{ textOnly }

func (a *staleAnswer) TypeshiftAnswerType() AnswerType { return AnswerType{Name: "old"} }

type twice struct{ Agent }

func (a *twice) Declare() {
	Returns[answerVerdict](a)
	Returns[answerVerdict](a)
}

// TestAnswerOf checks the run's check of an agent's answer type against its generated code.
func TestAnswerOf(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		d     Declarer
		ok    bool
		stale bool
		fails bool
	}{
		{d: &generatedAnswer{}, ok: true},
		{d: &textOnly{}},
		{d: &answering{}, stale: true, fails: true},   // Returns without generated code
		{d: &staleAnswer{}, stale: true, fails: true}, // generated code without Returns
		{d: &twice{}, fails: true},
	} {
		tc.d.Declare()
		ans, ok, err := answerOf(tc.d)
		is.Equal(ok, tc.ok)
		is.Equal(err != nil, tc.fails)
		is.Equal(errors.Is(err, toolset.ErrStale), tc.stale)
		if ok {
			is.Equal(ans.Name, "answerVerdict")
		}
	}
}
