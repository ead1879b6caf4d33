package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// The attribute keys of the GenAI semantic conventions this package writes.
const (
	OperationName = attribute.Key("gen_ai.operation.name")
	ProviderName  = attribute.Key("gen_ai.provider.name")
	RequestModel  = attribute.Key("gen_ai.request.model")
	ResponseModel = attribute.Key("gen_ai.response.model")
	ResponseID    = attribute.Key("gen_ai.response.id")
	FinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	InputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	OutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	// CacheReadTokens, CacheCreationTokens and ReasoningTokens are shares of the input and output tokens:
	// read from and written to the provider's prompt cache, and spent reasoning.
	CacheReadTokens     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	CacheCreationTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	ReasoningTokens     = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	TokenType           = attribute.Key("gen_ai.token.type")
	RequestMaxTokens    = attribute.Key("gen_ai.request.max_tokens")
	RequestTemp         = attribute.Key("gen_ai.request.temperature")
	RequestTopP         = attribute.Key("gen_ai.request.top_p")
	RequestSeed         = attribute.Key("gen_ai.request.seed")
	RequestStop         = attribute.Key("gen_ai.request.stop_sequences")
	AgentName           = attribute.Key("gen_ai.agent.name")
	ConversationID      = attribute.Key("gen_ai.conversation.id")
	ToolName            = attribute.Key("gen_ai.tool.name")
	ToolCallID          = attribute.Key("gen_ai.tool.call.id")
	ToolType            = attribute.Key("gen_ai.tool.type")
	ToolDescription     = attribute.Key("gen_ai.tool.description")
	ErrorType           = attribute.Key("error.type")

	// Content, recorded only when capture is on.
	InputMessages      = attribute.Key("gen_ai.input.messages")
	OutputMessages     = attribute.Key("gen_ai.output.messages")
	SystemInstructions = attribute.Key("gen_ai.system_instructions")
	ToolCallArguments  = attribute.Key("gen_ai.tool.call.arguments")
	ToolCallResult     = attribute.Key("gen_ai.tool.call.result")
)

// The metric names of the GenAI semantic conventions.
const (
	MetricTokenUsage        = "gen_ai.client.token.usage"
	MetricOperationDuration = "gen_ai.client.operation.duration"
)

// MetricWatchEventsDropped counts the events of streaming runs a store could not publish to watchers in other
// processes. It is Typeshift's own, outside the GenAI conventions.
const MetricWatchEventsDropped = "typeshift.watch.events.dropped"

// CaptureContentEnv is the environment variable that turns content capture on when it is "true".
const CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/typeshift-go/typeshift/agent/telemetry"

// Options configure an [Instrumentation]. The zero value uses the global providers and follows the environment
// on content capture.
type Options struct {
	// TracerProvider makes the tracer; nil uses otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter; nil uses otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// CaptureContent records message content on spans. False leaves the decision to the environment variable
	// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.
	CaptureContent bool
}

// Instrumentation holds the tracer, the metric instruments and the content decision. Make one per program (or
// per host) with [New]; it is safe for concurrent use.
type Instrumentation struct {
	tracer   trace.Tracer
	tokens   metric.Int64Histogram
	duration metric.Float64Histogram
	dropped  metric.Int64Counter // watch events a relay could not publish
	capture  bool
	names    names // span names by operation and agent or tool
}

// New returns the instrumentation opts describe. A nil opts is the zero value. Instruments that the meter cannot
// make fall back to no-ops, so that telemetry never stops a run.
func New(opts *Options) *Instrumentation {
	if opts == nil {
		opts = &Options{}
	}
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	in := &Instrumentation{
		tracer:  tp.Tracer(instrumentationName),
		capture: opts.CaptureContent || strings.EqualFold(strings.TrimSpace(os.Getenv(CaptureContentEnv)), "true"),
	}
	meter := mp.Meter(instrumentationName)
	var err error
	in.tokens, err = meter.Int64Histogram(MetricTokenUsage,
		metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	if err != nil {
		otel.Handle(err)
	}
	in.duration, err = meter.Float64Histogram(MetricOperationDuration,
		metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	if err != nil {
		otel.Handle(err)
	}
	in.dropped, err = meter.Int64Counter(MetricWatchEventsDropped,
		metric.WithUnit("{event}"),
		metric.WithDescription("Events of streaming runs that could not be published to watchers in other processes."))
	if err != nil {
		otel.Handle(err)
	}
	return in
}

// WatchEventsDropped counts n events of a streaming run that the store could not publish to watchers in other
// processes; those watchers see a gap and reload the conversation.
func (in *Instrumentation) WatchEventsDropped(ctx context.Context, n int64) {
	if in.dropped != nil {
		in.dropped.Add(ctx, n)
	}
}

// CapturesContent reports whether message content is recorded.
func (in *Instrumentation) CapturesContent() bool { return in.capture }

// Client wraps c, the client of provider (such as "openai"), so that each call is traced and measured.
func Client(c chat.Client, provider string, opts *Options) chat.Client {
	return New(opts).Client(c, provider)
}

// Middleware returns a [chat.Middleware] instrumenting the client it wraps as the client of provider.
func (in *Instrumentation) Middleware(provider string) chat.Middleware {
	return func(c chat.Client) chat.Client { return in.Client(c, provider) }
}

// ErrorTypeOf returns the low-cardinality error.type value of err: the HTTP status of a provider's refusal,
// "canceled", "timeout", "panic" for a tool that panicked, or the error's Go type.
func ErrorTypeOf(err error) string {
	var pe *chat.ProviderError
	var panicErr *toolset.PanicError
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &pe) && pe.StatusCode != 0:
		return strconv.Itoa(pe.StatusCode)
	case errors.As(err, &pe):
		return "provider_error"
	case errors.As(err, &panicErr):
		return "panic"
	}
	return fmt.Sprintf("%T", err)
}
