package telemetry_test

import (
	"context"
	"encoding/json"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
)

// benchInstrumentation is the real SDK with a no-op span exporter (synchronous) and a metric reader nobody
// collects, as in agent's BenchmarkRound: every span and value is recorded, nothing is shipped.
func benchInstrumentation(b *testing.B) *telemetry.Instrumentation {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return telemetry.New(&telemetry.Options{TracerProvider: tp, MeterProvider: mp})
}

// BenchmarkChat is one model call through the instrumented client: the chat span, the duration metric and the
// two token-usage values. The model answers at once, so the figures are the instrumentation's.
func BenchmarkChat(b *testing.B) {
	ctx := context.Background()
	resp := &chat.Response{
		ID: "resp_1", Model: "m1", FinishReason: chat.FinishToolCalls,
		Usage:    chat.Usage{InputTokens: 120, OutputTokens: 30, TotalTokens: 150},
		Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "ok"}}}},
	}
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return resp, nil
	})
	c := benchInstrumentation(b).Client(model, "openai")
	msgs := []chat.Message{{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "Is my printer ticket open?"}}}}
	opts := &chat.Options{Model: "m1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Respond(ctx, msgs, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTool is one execute_tool span: started, then ended with the tool's result.
func BenchmarkTool(b *testing.B) {
	ctx := context.Background()
	in := benchInstrumentation(b)
	call := chat.ToolCall{ID: "call_1", Name: "search_tickets", Arguments: json.RawMessage(`{"query":"printer"}`)}
	result := json.RawMessage(`{"tickets":[]}`)
	b.ReportAllocs()
	for b.Loop() {
		_, span := in.StartTool(ctx, call, "Searches tickets.")
		span.End(result, nil)
	}
}

// BenchmarkAgent is one invoke_agent span.
func BenchmarkAgent(b *testing.B) {
	ctx := context.Background()
	in := benchInstrumentation(b)
	usage := chat.Usage{InputTokens: 240, OutputTokens: 60, TotalTokens: 300}
	b.ReportAllocs()
	for b.Loop() {
		_, span := in.StartAgent(ctx, "Support", "")
		span.End(usage, nil)
	}
}
