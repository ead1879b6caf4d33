package agent

import (
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/toolset"
)

// Returns declares that the agent answers with a value of type T, a named struct type such as Verdict, rather
// than with text. Call it in Declare, once:
//
//	agent.Returns[Verdict](a)
//
// typeshift generate reads the type as it reads a tool's input struct (doc comments, json and jsonschema tags,
// enums, required and optional fields) and writes its JSON schema and its decoder into the agent's generated
// code, which describes them as an [AnswerType]. At run time Returns only records the type's name, so that a
// generated file written before the call can be told apart. See docs/typed-answers.md.
func Returns[T any](a Declarer) {
	ag := a.base()
	var zero T
	ag.answers = append(ag.answers, fmt.Sprintf("%T", zero))
}

// An AnswerType describes an agent's answer type as the generator wrote it from [Returns]: what a run hands
// the model to shape its answer, and how it reads the answer back. The generated code of an agent that calls
// Returns implements [Answered], whose method returns it.
type AnswerType struct {
	// Name is the answer type's Go name, such as "Verdict": letters, digits and underscores, which providers
	// accept as the name of a structured output.
	Name string
	// Description is the answer type's doc comment, or empty.
	Description string
	// Schema is the answer's JSON Schema (draft 2020-12), written by the same rules as a tool's input schema.
	Schema json.RawMessage
	// Decode reads one JSON value into the answer type: it accepts exactly what encoding/json into the type,
	// with the schema checked, accepts (but an object that names a property twice). On success the value's
	// dynamic type is the answer type itself, T and not *T. Otherwise it returns a nil value and an error of
	// type *tooljson.Error whose message names the property and what to fix, written for the model to act on.
	Decode func(data []byte) (any, error)
}

// Answered is implemented by the generated code of an agent that declares an answer type with [Returns]. It is
// for generated code (see the package doc).
type Answered interface {
	TypeshiftAnswerType() AnswerType
}

// DecodeAnswer decodes data with ans.Decode and returns the value as T. It fails with the decoder's error when
// data is not an answer, and with an error of its own when T is not the answer type.
func DecodeAnswer[T any](ans AnswerType, data []byte) (T, error) {
	var zero T
	if ans.Decode == nil {
		return zero, fmt.Errorf("agent: the answer %s has no decoder", ans.Name)
	}
	v, err := ans.Decode(data)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("agent: the answer type is %s, not %T", ans.Name, zero)
	}
	return t, nil
}

// answerTypes returns the type names the agent's [Returns] calls recorded, as %T spells them
// ("support.Verdict"), in the order Declare made them.
func (a *Agent) answerTypes() []string { return a.answers }

// answerOf returns the answer type that d's generated code describes, and false for an agent that answers with
// text. d's Declare must have run. It is the check the run makes before it asks for an answer: when Declare and
// the generated code disagree (Returns called but no [AnswerType] generated, or one generated for a Declare
// that no longer calls Returns) it fails with an error wrapping [toolset.ErrStale]. A changed type argument is
// not seen here; [DecodeAnswer] refuses the value then, and go vet reports the file (TSH010).
func answerOf(d Declarer) (AnswerType, bool, error) {
	recorded := d.base().answerTypes()
	gen, generated := d.(Answered)
	switch {
	case len(recorded) > 1:
		return AnswerType{}, false, fmt.Errorf("agent %T declares %d answer types with Returns; an agent has one", d, len(recorded))
	case len(recorded) == 1 && !generated:
		return AnswerType{}, false, fmt.Errorf("agent %T returns %s but its generated code does not describe it: %w", d, recorded[0], toolset.ErrStale)
	case len(recorded) == 0 && generated:
		return AnswerType{}, false, fmt.Errorf("agent %T has generated code for an answer type its Declare no longer returns: %w", d, toolset.ErrStale)
	case !generated:
		return AnswerType{}, false, nil
	}
	ans := gen.TypeshiftAnswerType()
	if ans.Decode == nil || len(ans.Schema) == 0 {
		return AnswerType{}, false, fmt.Errorf("agent %T describes its answer type %s without a schema or a decoder", d, ans.Name)
	}
	return ans, true, nil
}
