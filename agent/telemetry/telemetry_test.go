package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/toolset"
)

// harness is an instrumentation over the real SDK, with an in-memory span recorder and a manual metric reader.
type harness struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	in     *telemetry.Instrumentation
}

func newHarness(t *testing.T, capture bool) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	h.in = telemetry.New(&telemetry.Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture})
	return h
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// point is one histogram data point, flattened for assertions.
type point struct {
	attrs map[attribute.Key]string
	count uint64
	sum   float64
}

func (h *harness) histogram(t *testing.T, name string) []point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []point
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Histogram[int64]:
				if m.Unit != "{token}" {
					t.Fatalf("%s unit %q", name, m.Unit)
				}
				for _, dp := range d.DataPoints {
					out = append(out, point{flatten(dp.Attributes), dp.Count, float64(dp.Sum)})
				}
			case metricdata.Histogram[float64]:
				if m.Unit != "s" {
					t.Fatalf("%s unit %q", name, m.Unit)
				}
				for _, dp := range d.DataPoints {
					out = append(out, point{flatten(dp.Attributes), dp.Count, dp.Sum})
				}
			default:
				t.Fatalf("%s is a %T, not a histogram", name, m.Data)
			}
		}
	}
	return out
}

func flatten(set attribute.Set) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range set.ToSlice() {
		m[kv.Key] = kv.Value.Emit()
	}
	return m
}

// model answers "Ticket 4711 is open." with fixed usage.
var model = chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	resp := chattest.Text("Ticket 4711 is open.")
	resp.ID, resp.Model = "resp-1", "gpt-test-2026"
	resp.Usage = chat.Usage{InputTokens: 120, OutputTokens: 8, TotalTokens: 128}
	return resp, nil
})

var (
	msgs = []chat.Message{{Role: chat.RoleUser, AuthorName: "ada", Parts: []chat.Part{chat.Text{Text: "Is 4711 open? my secret"}}}}
	opts = &chat.Options{Model: "gpt-test", Instructions: "Be brief.", Temperature: new(0.3)}
)

func TestChatSpanAndMetrics(t *testing.T) {
	t.Setenv(telemetry.CaptureContentEnv, "")
	is := is.New(t)
	h := newHarness(t, false)
	c := h.in.Client(model, "openai")
	_, err := c.Respond(context.Background(), msgs, opts)
	is.NoErr(err)

	ended := h.spans.Ended()
	is.Equal(len(ended), 1)
	s := ended[0]
	is.Equal(s.Name(), "chat gpt-test")
	is.Equal(s.SpanKind(), trace.SpanKindClient)
	a := attrs(s)
	is.Equal(a[telemetry.OperationName].AsString(), "chat")
	is.Equal(a[telemetry.ProviderName].AsString(), "openai")
	is.Equal(a[telemetry.RequestModel].AsString(), "gpt-test")
	is.Equal(a[telemetry.ResponseModel].AsString(), "gpt-test-2026")
	is.Equal(a[telemetry.ResponseID].AsString(), "resp-1")
	is.Equal(a[telemetry.InputTokens].AsInt64(), int64(120))
	is.Equal(a[telemetry.OutputTokens].AsInt64(), int64(8))
	is.Equal(a[telemetry.FinishReasons].AsStringSlice(), []string{"stop"})
	is.Equal(a[telemetry.RequestTemp].AsFloat64(), 0.3)
	for _, k := range []attribute.Key{telemetry.InputMessages, telemetry.OutputMessages, telemetry.SystemInstructions, telemetry.ErrorType} {
		_, ok := a[k]
		is.True(!ok) // no content unless asked for; no error
	}
	is.Equal(s.Status().Code, codes.Unset)

	tokens := h.histogram(t, telemetry.MetricTokenUsage)
	is.Equal(len(tokens), 2) // split by token type
	byType := map[string]point{}
	for _, p := range tokens {
		byType[p.attrs[telemetry.TokenType]] = p
		is.Equal(p.attrs[telemetry.OperationName], "chat")
		is.Equal(p.attrs[telemetry.ProviderName], "openai")
		is.Equal(p.attrs[telemetry.RequestModel], "gpt-test")
		is.Equal(p.attrs[telemetry.ResponseModel], "gpt-test-2026")
	}
	is.Equal(byType["input"].sum, 120.0)
	is.Equal(byType["output"].sum, 8.0)
	is.Equal(byType["input"].count, uint64(1))

	dur := h.histogram(t, telemetry.MetricOperationDuration)
	is.Equal(len(dur), 1)
	is.Equal(dur[0].count, uint64(1))
	_, hasErr := dur[0].attrs[telemetry.ErrorType]
	is.True(!hasErr)
	is.True(dur[0].sum >= 0 && dur[0].sum < 5)
}

func TestChatContentCapture(t *testing.T) {
	for _, viaEnv := range []bool{false, true} {
		t.Run(fmt.Sprint("env=", viaEnv), func(t *testing.T) {
			is := is.New(t)
			if viaEnv {
				t.Setenv(telemetry.CaptureContentEnv, "True")
			} else {
				t.Setenv(telemetry.CaptureContentEnv, "")
			}
			h := newHarness(t, !viaEnv)
			is.True(h.in.CapturesContent())
			_, err := h.in.Client(model, "openai").Respond(context.Background(), msgs, opts)
			is.NoErr(err)
			a := attrs(h.spans.Ended()[0])

			var in []map[string]any
			is.NoErr(json.Unmarshal([]byte(a[telemetry.InputMessages].AsString()), &in))
			is.Equal(in, []map[string]any{{"role": "user", "name": "ada", "parts": []any{map[string]any{"type": "text", "content": "Is 4711 open? my secret"}}}})
			var out []map[string]any
			is.NoErr(json.Unmarshal([]byte(a[telemetry.OutputMessages].AsString()), &out))
			is.Equal(out[0]["finish_reason"], "stop")
			is.Equal(out[0]["parts"], []any{map[string]any{"type": "text", "content": "Ticket 4711 is open."}})
			is.Equal(a[telemetry.SystemInstructions].AsString(), `[{"type":"text","content":"Be brief."}]`)
		})
	}
}

func TestChatError(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, false)
	failing := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return nil, &chat.ProviderError{Provider: "openai", StatusCode: 429, Message: "slow down"}
	})
	_, err := h.in.Client(failing, "openai").Respond(context.Background(), msgs, opts)
	is.True(err != nil)

	s := h.spans.Ended()[0]
	is.Equal(s.Status().Code, codes.Error)
	is.Equal(attrs(s)[telemetry.ErrorType].AsString(), "429")
	dur := h.histogram(t, telemetry.MetricOperationDuration)
	is.Equal(len(dur), 1)
	is.Equal(dur[0].attrs[telemetry.ErrorType], "429")
	is.Equal(len(h.histogram(t, telemetry.MetricTokenUsage)), 0) // no usage, no token metric
}

func TestChatStream(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, true)
	c := chat.Chain(model, h.in.Middleware("openai"))
	n := 0
	for _, err := range c.Stream(context.Background(), msgs, opts) {
		is.NoErr(err)
		n++
		is.Equal(len(h.spans.Ended()), 0) // the span lives as long as the stream
	}
	is.True(n > 2)
	ended := h.spans.Ended()
	is.Equal(len(ended), 1)
	a := attrs(ended[0])
	is.Equal(a[telemetry.InputTokens].AsInt64(), int64(120))
	is.Equal(a[telemetry.OutputTokens].AsInt64(), int64(8))
	is.Equal(a[telemetry.ResponseModel].AsString(), "gpt-test-2026")
	is.Equal(a[telemetry.FinishReasons].AsStringSlice(), []string{"stop"})
	is.True(strings.Contains(a[telemetry.OutputMessages].AsString(), `"content":"Ticket 4711 is open."`)) // deltas joined

	var input float64
	for _, p := range h.histogram(t, telemetry.MetricTokenUsage) {
		if p.attrs[telemetry.TokenType] == "input" {
			input += p.sum
		}
	}
	is.Equal(input, 120.0)
}

func TestChatStreamStoppedAndFailed(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, false)
	for range h.in.Client(model, "openai").Stream(context.Background(), msgs, opts) {
		break
	}
	is.Equal(len(h.spans.Ended()), 1) // a consumer that stops early still ends the span
	is.Equal(h.spans.Ended()[0].Status().Code, codes.Unset)

	canceled := chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
		return nil, fmt.Errorf("stream: %w", context.Canceled)
	})
	var last error
	for _, err := range h.in.Client(canceled, "openai").Stream(context.Background(), msgs, opts) {
		last = err
	}
	is.True(errors.Is(last, context.Canceled))
	s := h.spans.Ended()[1]
	is.Equal(attrs(s)[telemetry.ErrorType].AsString(), "canceled")
	is.Equal(s.Status().Code, codes.Error)
}

func TestAgentAndToolSpans(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, false)
	ctx, agent := h.in.StartAgent(context.Background(), "support", "c-1")
	c := h.in.Client(model, "openai")
	var total chat.Usage
	for range 2 {
		resp, err := c.Respond(ctx, msgs, opts)
		is.NoErr(err)
		total = total.Add(resp.Usage)
	}
	call := chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711,"note":"secret"}`)}
	_, tool := h.in.StartTool(ctx, call, "Reads one ticket.")
	tool.End(json.RawMessage(`{"title":"secret printer"}`), nil)
	_, failing := h.in.StartTool(ctx, chat.ToolCall{ID: "call_2", Name: "close_ticket"}, "")
	failing.End(nil, &toolset.PanicError{Tool: "close_ticket", Value: "boom"})
	agent.End(total, nil)

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range h.spans.Ended() {
		spans[s.Name()] = s
	}
	is.Equal(len(h.spans.Ended()), 5)
	root := spans["invoke_agent support"]
	is.True(root != nil)
	is.Equal(root.SpanKind(), trace.SpanKindInternal)
	a := attrs(root)
	is.Equal(a[telemetry.OperationName].AsString(), "invoke_agent")
	is.Equal(a[telemetry.AgentName].AsString(), "support")
	is.Equal(a[telemetry.ConversationID].AsString(), "c-1")
	is.Equal(a[telemetry.InputTokens].AsInt64(), int64(240)) // the run's total, as attributes

	ts := spans["execute_tool get_ticket"]
	is.True(ts != nil)
	is.Equal(ts.SpanKind(), trace.SpanKindInternal)
	is.Equal(ts.Parent().SpanID(), root.SpanContext().SpanID())
	is.Equal(spans["chat gpt-test"].Parent().SpanID(), root.SpanContext().SpanID())
	ta := attrs(ts)
	is.Equal(ta[telemetry.OperationName].AsString(), "execute_tool")
	is.Equal(ta[telemetry.ToolName].AsString(), "get_ticket")
	is.Equal(ta[telemetry.ToolCallID].AsString(), "call_1")
	is.Equal(ta[telemetry.ToolDescription].AsString(), "Reads one ticket.")
	_, args := ta[telemetry.ToolCallArguments]
	_, result := ta[telemetry.ToolCallResult]
	is.True(!args && !result) // content off

	fa := attrs(spans["execute_tool close_ticket"])
	is.Equal(fa[telemetry.ErrorType].AsString(), "panic")
	is.Equal(spans["execute_tool close_ticket"].Status().Code, codes.Error)

	// Tokens are counted by the two chat calls only: the agent span adds none.
	var input, output float64
	var points uint64
	for _, p := range h.histogram(t, telemetry.MetricTokenUsage) {
		points += p.count
		switch p.attrs[telemetry.TokenType] {
		case "input":
			input += p.sum
		case "output":
			output += p.sum
		}
	}
	is.Equal(input, 240.0)
	is.Equal(output, 16.0)
	is.Equal(points, uint64(4))
	is.Equal(h.histogram(t, telemetry.MetricOperationDuration)[0].count, uint64(2))
}

func TestToolContentCapture(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, true)
	_, tool := h.in.StartTool(context.Background(), chat.ToolCall{ID: "c", Name: "get_ticket", Arguments: json.RawMessage(`{"number":`)}, "")
	tool.End(json.RawMessage(`{"title":"Printer"}`), nil)
	a := attrs(h.spans.Ended()[0])
	is.Equal(a[telemetry.ToolCallArguments].AsString(), `"{\"number\":"`) // malformed arguments kept as a string
	is.Equal(a[telemetry.ToolCallResult].AsString(), `{"title":"Printer"}`)

	_, agent := h.in.StartAgent(context.Background(), "", "")
	agent.End(chat.Usage{}, errors.New("limit reached"))
	s := h.spans.Ended()[1]
	is.Equal(s.Name(), "invoke_agent")
	is.Equal(attrs(s)[telemetry.ErrorType].AsString(), "*errors.errorString")
}

func TestErrorTypeOf(t *testing.T) {
	is := is.New(t)
	is.Equal(telemetry.ErrorTypeOf(context.DeadlineExceeded), "timeout")
	is.Equal(telemetry.ErrorTypeOf(fmt.Errorf("x: %w", context.Canceled)), "canceled")
	is.Equal(telemetry.ErrorTypeOf(&chat.ProviderError{StatusCode: 500}), "500")
	is.Equal(telemetry.ErrorTypeOf(&chat.ProviderError{}), "provider_error")
	is.Equal(telemetry.ErrorTypeOf(fmt.Errorf("w: %w", &toolset.PanicError{})), "panic")
}

func TestDefaultsToGlobalProviders(t *testing.T) {
	is := is.New(t)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prevT, prevM := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prevT)
		otel.SetMeterProvider(prevM)
	})

	c := telemetry.Client(model, "openai", nil) // no providers given: the globals
	_, err := c.Respond(context.Background(), msgs, opts)
	is.NoErr(err)
	is.Equal(len(spans.Ended()), 1)
	h := &harness{reader: reader}
	is.Equal(len(h.histogram(t, telemetry.MetricOperationDuration)), 1)
}

// BenchmarkRespond measures what the instrumentation adds to one call, with the real SDK and no exporter.
func BenchmarkRespond(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	plain := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Model: "m", Usage: chat.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2}}, nil
	})
	instrumented := telemetry.Client(plain, "openai", &telemetry.Options{TracerProvider: tp, MeterProvider: mp})
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		c    chat.Client
	}{{"plain", plain}, {"instrumented", instrumented}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.c.Respond(ctx, msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
