package telemetry

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Client wraps c, the client of provider, so that each call is traced and measured. Spans and metrics name the
// provider as the conventions' gen_ai.provider.name does (see [ProviderNameOf]).
func (in *Instrumentation) Client(c chat.Client, provider string) chat.Client {
	return &client{next: c, in: in, provider: ProviderNameOf(provider)}
}

// ProviderNameOf returns the gen_ai.provider.name value of a provider registered under name: the conventions'
// well-known value for the providers Typeshift ships ("openai", "anthropic", "gcp.gemini", "gcp.vertex_ai",
// "aws.bedrock"), and name itself for any other.
func ProviderNameOf(name string) string {
	switch name {
	case "gemini", "google", "googleai":
		return "gcp.gemini"
	case "vertex", "vertexai", "gemini-vertex":
		return "gcp.vertex_ai"
	case "bedrock", "anthropic-bedrock":
		return "aws.bedrock"
	case "anthropic-vertex":
		return "gcp.vertex_ai"
	}
	return name
}

// client is the instrumented chat.Client.
type client struct {
	next     chat.Client
	in       *Instrumentation
	provider string
	// measures caches the metric attributes per (request model, response model, error type): building an
	// attribute set costs more than recording a value.
	measures sync.Map // measureKey -> *measures
	size     atomic.Int64
}

type measureKey struct{ request, response, errorType string }

// measures are the record options of one attribute combination, as one-element slices: passing an option to
// Record as a fresh variadic slice would allocate that slice at every call.
type measures struct {
	duration, input, output []metric.RecordOption
}

// maxMeasures bounds the cache; past it, attributes are built for each call.
const maxMeasures = 1024

func (c *client) measure(request, response, errorType string) *measures {
	key := measureKey{request, response, errorType}
	if m, ok := c.measures.Load(key); ok {
		return m.(*measures)
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, OperationName.String("chat"), ProviderName.String(c.provider))
	if request != "" {
		attrs = append(attrs, RequestModel.String(request))
	}
	if response != "" {
		attrs = append(attrs, ResponseModel.String(response))
	}
	if errorType != "" {
		attrs = append(attrs, ErrorType.String(errorType))
	}
	m := &measures{
		duration: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))},
		input:    []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(append(attrs, TokenType.String("input"))...))},
		output:   []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(append(attrs, TokenType.String("output"))...))},
	}
	if c.size.Add(1) <= maxMeasures {
		c.measures.Store(key, m)
	}
	return m
}

// Respond runs one traced call.
func (c *client) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	ctx, call := c.start(ctx, msgs, opts)
	resp, err := c.next.Respond(ctx, msgs, opts)
	if err != nil {
		call.end(err)
		return nil, err
	}
	call.id, call.model, call.usage, call.finish = resp.ID, resp.Model, resp.Usage, resp.FinishReason
	if c.in.capture {
		call.output = resp.Messages
	}
	call.end(nil)
	return resp, nil
}

// Stream runs one traced streamed call; the span ends with the stream, however it ends.
func (c *client) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		ctx, call := c.start(ctx, msgs, opts)
		var failed error
		defer func() { call.end(failed) }()
		for u, err := range c.next.Stream(ctx, msgs, opts) {
			if err != nil {
				failed = err
				yield(u, err)
				return
			}
			if u.ResponseID != "" {
				call.id = u.ResponseID
			}
			if u.Model != "" {
				call.model = u.Model
			}
			if u.FinishReason != "" {
				call.finish = u.FinishReason
			}
			for _, p := range u.Parts {
				if up, ok := p.(chat.UsagePart); ok {
					call.usage = call.usage.Add(up.Usage)
				}
			}
			if c.in.capture {
				call.collect(u)
			}
			if !yield(u, nil) {
				return
			}
		}
	}
}

// call is one chat operation in flight.
type call struct {
	c      *client
	span   trace.Span
	start  time.Time
	model  string // the requested model, then the answering one
	reqMod string
	id     string
	usage  chat.Usage
	finish chat.FinishReason
	output []chat.Message
	// The attributes and options live in the call, which is allocated anyway: slices passed to the tracer's
	// methods would otherwise be allocated one by one.
	attrs [10]attribute.KeyValue
	close [9]attribute.KeyValue // the attributes set at the end
	opts  [2]trace.SpanStartOption
}

func (c *client) start(ctx context.Context, msgs []chat.Message, opts *chat.Options) (context.Context, *call) {
	var model string
	if opts != nil {
		model = opts.Model
	}
	k := &call{c: c, reqMod: model}
	attrs := append(k.attrs[:0], OperationName.String("chat"), ProviderName.String(c.provider))
	if model != "" {
		attrs = append(attrs, RequestModel.String(model))
	}
	if opts != nil {
		if opts.Temperature != nil {
			attrs = append(attrs, RequestTemp.Float64(*opts.Temperature))
		}
		if opts.TopP != nil {
			attrs = append(attrs, RequestTopP.Float64(*opts.TopP))
		}
		if opts.MaxTokens != nil {
			attrs = append(attrs, RequestMaxTokens.Int(*opts.MaxTokens))
		}
		if opts.Seed != nil {
			attrs = append(attrs, RequestSeed.Int64(*opts.Seed))
		}
		if len(opts.Stop) > 0 {
			attrs = append(attrs, RequestStop.StringSlice(opts.Stop))
		}
	}
	if c.in.capture {
		attrs = append(attrs, InputMessages.String(messagesJSON(msgs, "")))
		if opts != nil && opts.Instructions != "" {
			attrs = append(attrs, SystemInstructions.String(instructionsJSON(opts.Instructions)))
		}
	}
	k.opts = [2]trace.SpanStartOption{kindClient, trace.WithAttributes(attrs...)}
	ctx, k.span = c.in.tracer.Start(ctx, c.in.names.of("chat", model), k.opts[:]...)
	k.start = time.Now()
	return ctx, k
}

// collect keeps a streamed answer for the output-messages attribute, joining text deltas.
func (k *call) collect(u chat.Update) {
	if k.output == nil {
		k.output = []chat.Message{{Role: chat.RoleAssistant}}
	}
	m := &k.output[0]
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.UsagePart:
			continue
		case chat.Text:
			if n := len(m.Parts); n > 0 {
				if last, ok := m.Parts[n-1].(chat.Text); ok {
					m.Parts[n-1] = chat.Text{Text: last.Text + p.Text}
					continue
				}
			}
		case chat.Reasoning:
			if n := len(m.Parts); n > 0 {
				if last, ok := m.Parts[n-1].(chat.Reasoning); ok {
					if joined, ok := chat.JoinReasoning(last, p); ok {
						m.Parts[n-1] = joined
						continue
					}
				}
			}
		}
		m.Parts = append(m.Parts, p)
	}
}

// end finishes the span and records the metrics, once.
func (k *call) end(err error) {
	in, span := k.c.in, k.span
	elapsed := time.Since(k.start).Seconds()
	if err != nil {
		et := ErrorTypeOf(err)
		k.close[0] = ErrorType.String(et)
		span.SetAttributes(k.close[:1]...)
		span.SetStatus(codes.Error, err.Error())
		in.duration.Record(context.Background(), elapsed, k.c.measure(k.reqMod, k.model, et).duration...)
		span.End()
		return
	}
	spanAttrs := k.close[:0]
	if k.model != "" {
		spanAttrs = append(spanAttrs, ResponseModel.String(k.model))
	}
	if k.id != "" {
		spanAttrs = append(spanAttrs, ResponseID.String(k.id))
	}
	if k.finish != "" {
		spanAttrs = append(spanAttrs, finishAttr(k.finish))
	}
	spanAttrs = append(spanAttrs, InputTokens.Int64(k.usage.InputTokens), OutputTokens.Int64(k.usage.OutputTokens))
	if k.usage.CacheReadTokens != 0 {
		spanAttrs = append(spanAttrs, CacheReadTokens.Int64(k.usage.CacheReadTokens))
	}
	if k.usage.CacheWriteTokens != 0 {
		spanAttrs = append(spanAttrs, CacheCreationTokens.Int64(k.usage.CacheWriteTokens))
	}
	if k.usage.ReasoningTokens != 0 {
		spanAttrs = append(spanAttrs, ReasoningTokens.Int64(k.usage.ReasoningTokens))
	}
	if in.capture {
		spanAttrs = append(spanAttrs, OutputMessages.String(messagesJSON(k.output, k.finish)))
	}
	span.SetAttributes(spanAttrs...)
	ctx := context.Background()
	m := k.c.measure(k.reqMod, k.model, "")
	in.duration.Record(ctx, elapsed, m.duration...)
	if k.usage != (chat.Usage{}) {
		in.tokens.Record(ctx, k.usage.InputTokens, m.input...)
		in.tokens.Record(ctx, k.usage.OutputTokens, m.output...)
	}
	span.End()
}
