package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

// WithAnswerMode sets how runs ask the model for the agent's typed answer, instead of the provider's default
// ([AnswerAuto]). It matters only for an agent that declares an answer type with [Returns].
func (a *Agent) WithAnswerMode(m AnswerMode) { a.answering.mode = m }

// WithAnswerRetries sets how many times a run sends a refused answer back to the model (it did not decode, or
// a validator refused it) before it ends with an [*AnswerError]; the default is [DefaultAnswerRetries], and 0
// accepts the first answer or none. Each retry is a model call of the run: counted in its usage, its budget and
// its max_iterations.
func (a *Agent) WithAnswerRetries(n int) { a.answering.retries = &n }

// ValidateAnswer registers a check of the agent's typed answer of type T, run after the answer decoded and
// before the run accepts it, in the order registered. An error sends the answer back to the model with the
// error's message as the reason, as a decoding error does; write it for the model to act on. T must be the type
// the agent declares with [Returns]; a run of an agent whose validator takes another type fails at its first
// answer. Call it in Declare:
//
//	agent.ValidateAnswer(a, func(ctx context.Context, v Verdict) error {
//		if v.Decision == "escalate" && v.Assignee == nil {
//			return errors.New("an escalated ticket needs an assignee")
//		}
//		return nil
//	})
func ValidateAnswer[T any](a Declarer, check func(ctx context.Context, v T) error) {
	ag := a.base()
	ag.answering.validators = append(ag.answering.validators, func(ctx context.Context, v any) error {
		t, ok := v.(T)
		if !ok {
			var zero T
			return &validatorTypeError{got: v, want: fmt.Sprintf("%T", zero)}
		}
		return check(ctx, t)
	})
}

// validatorTypeError is a validator's refusal of a value that is not its type: an agent whose validator does
// not take its answer type. It ends the run: it is the code's mistake, not the model's.
type validatorTypeError struct {
	got  any
	want string
}

func (e *validatorTypeError) Error() string {
	return fmt.Sprintf("agent: an answer validator takes %s, but the answer is of type %T", e.want, e.got)
}

// answerSpec is how a host's agent answers: its answer type, read once when the host binds the agent, and what
// Declare said of the mode, the retries and the validators. A host whose agent answers with text has none.
type answerSpec struct {
	ans        AnswerType
	mode       AnswerMode
	retries    int
	validators []func(ctx context.Context, v any) error
	// strict is the answer's schema in OpenAI's strict profile, whose Restore gives back the properties a
	// strict model writes as null; nil when the profile cannot describe the schema (then native mode is not
	// strict).
	strict *schemaprofile.Adapted
	// tool is the answer tool of tool mode: offered, never run.
	tool *toolset.Tool
	// prompt is what prompted mode adds to the instructions.
	prompt string
}

// AnswerToolName is the name of the tool a run offers in [AnswerTool] mode.
const AnswerToolName = "final_result"

// newAnswerSpec reads d's answer type once, with the checks of answerOf, and returns nil for an agent that
// answers with text.
func newAnswerSpec(d Declarer, ag *Agent) (*answerSpec, error) {
	ans, ok, err := answerOf(d)
	if err != nil {
		return nil, err
	}
	decl := ag.answering
	if !ok {
		if decl.mode != AnswerAuto || decl.retries != nil || len(decl.validators) > 0 {
			return nil, fmt.Errorf("agent %T sets how it answers with a type but declares none with agent.Returns", d)
		}
		return nil, nil
	}
	switch decl.mode {
	case AnswerAuto, AnswerNative, AnswerTool, AnswerPrompted:
	default:
		return nil, fmt.Errorf("agent %T: unknown answer mode %q", d, decl.mode)
	}
	a := &answerSpec{ans: ans, mode: decl.mode, retries: DefaultAnswerRetries, validators: decl.validators}
	if decl.retries != nil {
		if *decl.retries < 0 {
			return nil, fmt.Errorf("agent %T: answer retries must be 0 or more, got %d", d, *decl.retries)
		}
		a.retries = *decl.retries
	}
	if adapted, err := schemaprofile.OpenAIStrict.Adapt(ans.Name, ans.Schema); err == nil {
		a.strict = adapted
	}
	desc := "Give your final answer by calling this tool with it as the arguments. Call it once, when you are done."
	if ans.Description != "" {
		desc = ans.Description + " " + desc
	}
	a.tool = &toolset.Tool{Name: AnswerToolName, Description: desc, Schema: ans.Schema, ID: AnswerToolName,
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return nil, fmt.Errorf("agent: the answer tool is never run")
		}}
	a.prompt = "Answer with one JSON value that matches the JSON Schema below, and nothing else: no text around it, no code fence."
	if ans.Description != "" {
		a.prompt += " The answer is a " + ans.Name + ": " + ans.Description
	}
	a.prompt += "\n" + string(ans.Schema)
	return a, nil
}

// modeFor is the mode a run asks in: the agent's, or by default the provider's.
func (a *answerSpec) modeFor(provider string, tools int) AnswerMode {
	if a.mode != AnswerAuto {
		return a.mode
	}
	switch provider {
	case "openai", "anthropic":
		return AnswerNative
	case "gemini":
		if tools == 0 {
			return AnswerNative
		}
	}
	return AnswerTool
}
