package agent

import "context"

// AnswerMode is how a run asks the model for an agent's typed answer (see [Returns] and docs/typed-answers.md).
type AnswerMode string

// The modes [Agent.WithAnswerMode] takes.
const (
	// AnswerAuto, the default, picks the mode by the run's provider: native for OpenAI and Anthropic, whose
	// structured output works beside tools; for Gemini native when the run offers no tools and the answer tool
	// otherwise; the answer tool for any other client.
	AnswerAuto AnswerMode = ""
	// AnswerNative asks for the answer with the provider's structured output (chat.Options.ResponseFormat),
	// strict where the provider takes it: the model's text is the answer.
	AnswerNative AnswerMode = "native"
	// AnswerTool offers a tool named final_result whose input schema is the answer's: the model's call of it
	// ends the run with the call's arguments as the answer. The tool is never run, and neither the agent's
	// tools, its approval rules nor its middleware see it.
	AnswerTool AnswerMode = "tool"
	// AnswerPrompted adds the answer's schema to the instructions and reads the answer from the model's text:
	// the last resort, for a model with neither structured output nor tools.
	AnswerPrompted AnswerMode = "prompted"
)

// DefaultAnswerRetries is how many times a run sends a refused answer back to the model, unless the agent says
// otherwise with [Agent.WithAnswerRetries].
const DefaultAnswerRetries = 2

// answerDecl is what an agent's Declare says of how its typed answer is asked for and checked.
type answerDecl struct {
	mode       AnswerMode
	retries    *int
	validators []func(ctx context.Context, v any) error
}
