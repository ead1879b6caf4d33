package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/toolset"
)

func newTelemetry(t *testing.T) (*telemetry.Instrumentation, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	rec, reader := tracetest.NewSpanRecorder(), sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return telemetry.New(&telemetry.Options{TracerProvider: tp, MeterProvider: mp}), rec, reader
}

func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value
		}
	}
	return attribute.Value{}
}

func TestTelemetrySpans(t *testing.T) {
	is := is.New(t)
	in, rec, reader := newTelemetry(t)
	m := script(call(tc("1", "echo", `{}`), tc("2", "f", `{}`)), say("ok"))
	h := host(m, agent.Config{Telemetry: in}, echo("echo"), failing("f", "down"))
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)

	spans := rec.Ended()
	var names []string
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		names = append(names, s.Name())
		byName[s.Name()] = s
	}
	is.Equal(names, []string{"chat m1", "execute_tool echo", "execute_tool f", "chat m1", "invoke_agent tester"})
	run := byName["invoke_agent tester"]
	for _, s := range spans[:4] {
		is.Equal(s.Parent().SpanID(), run.SpanContext().SpanID()) // every span nests under the run's
	}
	is.Equal(attr(run, "gen_ai.agent.name").AsString(), "tester")
	is.Equal(attr(run, "gen_ai.usage.input_tokens").AsInt64(), res.Usage.InputTokens)
	is.Equal(attr(byName["execute_tool echo"], "gen_ai.tool.call.id").AsString(), "1")
	is.Equal(byName["execute_tool f"].Status().Code, codes.Error)
	is.Equal(attr(byName["chat m1"], "gen_ai.provider.name").AsString(), "test")

	// The token metric is recorded by the chat calls only: once per call and type.
	var rm metricdata.ResourceMetrics
	is.NoErr(reader.Collect(context.Background(), &rm))
	var tokens int64
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name == telemetry.MetricTokenUsage {
				for _, dp := range mt.Data.(metricdata.Histogram[int64]).DataPoints {
					tokens += dp.Sum
				}
			}
		}
	}
	is.Equal(tokens, res.Usage.InputTokens+res.Usage.OutputTokens)
}

func TestTelemetryFailedRun(t *testing.T) {
	is := is.New(t)
	in, rec, _ := newTelemetry(t)
	boom := errors.New("provider down")
	m := script(func([]chat.Message, *chat.Options) (*chat.Response, error) { return nil, boom })
	_, err := host(m, agent.Config{Telemetry: in}).Run(context.Background(), agent.Text("x"))
	is.True(errors.Is(err, boom))
	spans := rec.Ended()
	last := spans[len(spans)-1]
	is.Equal(last.Name(), "invoke_agent tester")
	is.Equal(last.Status().Code, codes.Error)
	is.True(attr(last, "error.type").AsString() != "")

	// A streamed run has its span too.
	for range host(script(say("ok")), agent.Config{Telemetry: in}).RunStream(context.Background(), agent.Text("x")) {
	}
	spans = rec.Ended()
	is.Equal(spans[len(spans)-1].Name(), "invoke_agent tester")
	is.Equal(spans[len(spans)-2].Name(), "chat m1")
}

func TestTelemetryWithProviders(t *testing.T) {
	is := is.New(t)
	in, rec, _ := newTelemetry(t)
	m := script(say("a"), say("b"))
	made := 0
	providers := chat.NewProviders(map[string]chat.ProviderFactory{
		"test": func(string) (chat.Client, error) { made++; return m, nil },
	})
	h, err := agent.NewHost(&configurable{}, agent.Config{Providers: providers, Telemetry: in,
		Tools: []toolset.Source{toolset.List{echo("echo")}}})
	is.NoErr(err)
	for range 2 {
		_, err = h.Run(context.Background(), agent.Text("x"))
		is.NoErr(err)
	}
	is.Equal(made, 1)
	n := 0
	for _, s := range rec.Ended() {
		if s.Name() == "chat m1" {
			n++
			is.Equal(attr(s, "gen_ai.provider.name").AsString(), "test")
		}
	}
	is.Equal(n, 2)
}
