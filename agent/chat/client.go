package chat

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	"github.com/typeshift-go/typeshift/toolset"
)

// A Client answers a conversation. Implementations are safe for concurrent use; they must not modify the
// messages or the options they are given (decorators that change them work on copies).
type Client interface {
	// Respond returns the whole response.
	Respond(ctx context.Context, msgs []Message, opts *Options) (*Response, error)
	// Stream yields the response as it is produced. A non-nil error ends the sequence.
	Stream(ctx context.Context, msgs []Message, opts *Options) iter.Seq2[Update, error]
}

// Middleware wraps a Client.
type Middleware func(Client) Client

// Chain wraps c in the middleware, the first listed outermost.
func Chain(c Client, mw ...Middleware) Client {
	for i := len(mw) - 1; i >= 0; i-- {
		c = mw[i](c)
	}
	return c
}

// Options tune one request. Nil pointers leave the provider's defaults.
type Options struct {
	// Model names the model, such as "gpt-4.1-mini".
	Model string
	// Temperature is the sampling temperature: higher is more varied.
	Temperature *float64
	// TopP is nucleus sampling's probability mass.
	TopP *float64
	// MaxTokens caps the tokens of the answer.
	MaxTokens *int
	// Stop lists sequences at which the model stops writing.
	Stop []string
	// Seed asks the provider for repeatable sampling, where it supports it.
	Seed *int64
	// Tools are offered to the model.
	Tools []*toolset.Tool
	// ToolChoice is "auto" (the default when empty), "none", "required", or the name of one tool.
	ToolChoice string
	// ParallelToolCalls lets the model ask for several calls at once (nil: the provider's default).
	ParallelToolCalls *bool
	// ResponseFormat asks for JSON matching a schema.
	ResponseFormat *ResponseFormat
	// Instructions are prepended as a system message by the provider.
	Instructions string
	// CacheMessages marks the request's stable prefix for providers with explicit prompt caching (Anthropic):
	// the instructions, the tools and the first CacheMessages messages will be sent again unchanged, so the
	// provider may cache them and bill later requests less. Zero or less asks for no cache marks (a negative
	// value also keeps the host from setting its own); providers that cache on their own (OpenAI, Gemini)
	// ignore it. It counts msgs as given to the client, and values beyond
	// len(msgs) count as len(msgs).
	CacheMessages int
	// CacheTTL is how long the provider keeps the prefix CacheMessages marks, where its API lets the caller say:
	// Anthropic takes 5 minutes (its default, also meant by zero) or an hour, and refuses other values before
	// the request. Providers that cache on their own ignore it.
	CacheTTL time.Duration
	// Reasoning asks for the model's reasoning for this request; nil leaves the client's defaults (such as
	// anthropic's WithThinking or openai's WithReasoningEffort). docs/providers.md maps it onto each API.
	Reasoning *ReasoningOptions
	// Extra holds provider-specific request fields, passed through as JSON and merged into the request the
	// provider builds: an object merges key by key into the field of the same name, anything else is added. A
	// key the provider set itself from these options, at any depth, is an error that names it
	// ([*ExtraConflictError]): Extra adds to the request, it never replaces what the library set.
	Extra map[string]json.RawMessage
}

// ReasoningOptions ask a model to reason before it answers, and say what of its reasoning comes back. The zero
// value leaves each to the provider and the model. Each provider maps them onto its API (docs/providers.md has
// the table); a value the API cannot take is an error before the request.
type ReasoningOptions struct {
	// Effort is how hard the model reasons. Providers whose API takes a token budget instead (Anthropic, Gemini
	// 2.x) map it onto one; ReasoningNone turns reasoning off where the model lets it.
	Effort ReasoningEffort
	// BudgetTokens caps the tokens spent reasoning (Anthropic's budget_tokens, Gemini's thinkingBudget); zero
	// leaves it to Effort. Providers whose API takes an effort only (OpenAI) map it onto one.
	BudgetTokens int
	// Summary asks for a summary of the reasoning at a level of detail, where the API writes summaries (the
	// OpenAI Responses API); setting it implies IncludeThoughts.
	Summary ReasoningSummary
	// IncludeThoughts says whether the model's readable thoughts, or their summary, come back as [Reasoning]
	// parts (nil: the provider's default): Gemini's includeThoughts; Claude's thinking display (false:
	// "omitted", the signature alone comes back); the Responses API's summary ("auto" when Summary is empty;
	// false asks for none). Encrypted reasoning and signatures come back either way.
	IncludeThoughts *bool
}

// ReasoningEffort is how hard a model reasons.
type ReasoningEffort string

// The efforts [ReasoningOptions] take.
const (
	ReasoningNone    ReasoningEffort = "none"
	ReasoningMinimal ReasoningEffort = "minimal"
	ReasoningLow     ReasoningEffort = "low"
	ReasoningMedium  ReasoningEffort = "medium"
	ReasoningHigh    ReasoningEffort = "high"
)

// ReasoningSummary is the detail of a reasoning summary.
type ReasoningSummary string

// The summaries [ReasoningOptions] take.
const (
	SummaryAuto     ReasoningSummary = "auto"
	SummaryConcise  ReasoningSummary = "concise"
	SummaryDetailed ReasoningSummary = "detailed"
)

// Clone returns a copy of o whose slices and maps can be changed without touching o.
func (o *Options) Clone() *Options {
	if o == nil {
		return &Options{}
	}
	c := *o
	c.Stop = append([]string(nil), o.Stop...)
	c.Tools = append([]*toolset.Tool(nil), o.Tools...)
	if o.Extra != nil {
		c.Extra = make(map[string]json.RawMessage, len(o.Extra))
		for k, v := range o.Extra {
			c.Extra[k] = v
		}
	}
	return &c
}

// ResponseFormat asks the model for JSON that matches Schema.
type ResponseFormat struct {
	// Name names the schema for the provider; providers supply one when it is empty.
	Name string
	// Schema is the JSON Schema the answer must match.
	Schema json.RawMessage
	// Strict asks the provider to enforce the schema exactly, where it can.
	Strict bool
}

// Response is a model's whole answer.
type Response struct {
	// ID is the provider's response id.
	ID string
	// Model is the model that answered.
	Model string
	// Messages are what the model added: usually one assistant message.
	Messages []Message
	// Usage counts the tokens of the request and the answer.
	Usage Usage
	// FinishReason says why the model stopped.
	FinishReason FinishReason
}

// Usage counts tokens. The detail counts are shares of the totals, never added to them: InputTokens counts every
// input token, cached or not (providers that report cached tokens apart, such as Anthropic, add them in), and
// OutputTokens counts reasoning tokens too (providers that report them apart, such as Gemini, add them in).
type Usage struct {
	// InputTokens counts the request, OutputTokens the answer, TotalTokens both.
	InputTokens, OutputTokens, TotalTokens int64
	// CacheReadTokens counts the input tokens read from the provider's prompt cache.
	CacheReadTokens int64
	// CacheWriteTokens counts the input tokens written to the provider's prompt cache.
	CacheWriteTokens int64
	// ReasoningTokens counts the output tokens the model spent reasoning.
	ReasoningTokens int64
}

// Add returns u plus v, field by field.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// FinishReason says why a model stopped.
type FinishReason string

// The finish reasons providers report.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)

// An Update is one piece of a streamed response. Text arrives in Text parts as deltas; reasoning arrives in
// Reasoning parts as deltas of its Text, its Signature or Encrypted form set on the last one (see [Collect]); a
// ToolCall part arrives whole, once the provider has assembled its arguments; usage arrives in a UsagePart.
type Update struct {
	// ResponseID and Model identify the response and the model that wrote it, when the provider says.
	ResponseID string
	Model      string
	// Role and AuthorName are those of the message the update belongs to.
	Role       Role
	AuthorName string
	// Parts are the update's pieces: text deltas, whole tool calls, usage.
	Parts []Part
	// FinishReason is set on the update that ends the response.
	FinishReason FinishReason
	// Progress, when not nil, makes this a progress update of a running tool call (see [ReportProgress]): it
	// has no parts, and it is not part of any message, so [Collect] skips it.
	Progress *Progress
	// Steering marks a message the run took in while it ran (steering input, see agent's Host.Steer), whole: Role,
	// AuthorName and Parts are that message's. It is stored as the run's input, not part of the response, so
	// [Collect] skips it.
	Steering bool
	// Answer, when not nil, makes this an update of the run's typed answer (see the agent package's Returns): the
	// answer as it streams, or the one the run accepted. It has no parts, and it is not part of any message (the
	// answer's text is), so [Collect] skips it.
	Answer *AnswerUpdate
}

// AnswerUpdate is a typed answer on a run's stream: while the model writes it, the fields complete so far; at
// the end, the answer the run accepted.
type AnswerUpdate struct {
	// Type is the answer type's name, such as "Verdict".
	Type string
	// Value is a JSON object. Before Final it holds only the fields whose values are complete so far, so a UI may
	// show a form or a table as it fills; no field in it changes later, though fields are added. A partial value
	// has not been checked against the schema.
	Value json.RawMessage
	// Final marks the answer the run accepted: decoded and checked, and the run's Result.Answer. An answer the
	// run rejects and asks again for is never Final; the partial values of the next attempt start over.
	Final bool
}
