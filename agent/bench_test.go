package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/option"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// supportAgent uses the generated tickets toolset, with the declaration the generator would write.
type supportAgent struct{ agent.Agent }

func (a *supportAgent) Declare() {
	a.WithInstructions("You help customers with their support tickets.")
	a.WithModel("test", "m1")
	agent.Use[*ticketsx.Tickets](a).Exclude((*ticketsx.Tickets).CloseTicket)
}

func (a *supportAgent) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Support", Uses: []agent.UseDeclaration{{Index: 0, Exclude: []string{"close_ticket"}}}}
}

var roundCalls = []chat.Part{
	chat.ToolCall{ID: "call_1", Name: "search_tickets", Arguments: json.RawMessage(`{"query":"printer"}`)},
	chat.ToolCall{ID: "call_2", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)},
}

// roundModel is a function model that answers a user message with two tool calls and a tool message with text:
// one round.
var roundModel = chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	if msgs[len(msgs)-1].Role == chat.RoleTool {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Ticket 4711 is open."}}}},
			Usage: oneUsage, FinishReason: chat.FinishStop}, nil
	}
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: roundCalls}}, Usage: oneUsage, FinishReason: chat.FinishToolCalls}, nil
})

// benchTelemetry is the real OpenTelemetry SDK with a no-op span exporter and a metric reader nobody collects.
func benchTelemetry(b *testing.B) *telemetry.Instrumentation {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return telemetry.New(&telemetry.Options{TracerProvider: tp, MeterProvider: mp})
}

// BenchmarkRound runs one model round with two tool calls, then the model's answer: through the whole pipeline,
// and through a hand-written loop that calls the same model and the same generated tools directly.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	ts := &ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}
	model := roundModel
	tel := benchTelemetry(b)

	b.Run("pipeline", func(b *testing.B) {
		h, err := agent.NewHost(&supportAgent{}, agent.Config{Client: model, Toolsets: []toolset.Source{ts}, Telemetry: tel})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			res, err := h.Run(ctx, agent.Text("Is my printer ticket open?"))
			if err != nil || res.Text() == "" {
				b.Fatal(err)
			}
		}
	})

	// untraced is the pipeline without telemetry, to tell the pipeline's cost from the spans'.
	b.Run("untraced", func(b *testing.B) {
		h, err := agent.NewHost(&supportAgent{}, agent.Config{Client: model, Toolsets: []toolset.Source{ts}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Run(ctx, agent.Text("Is my printer ticket open?")); err != nil {
				b.Fatal(err)
			}
		}
	})

	// added runs both in turn in one loop, so that both meet the same machine load, and reports the difference.
	b.Run("added", func(b *testing.B) {
		h, err := agent.NewHost(&supportAgent{}, agent.Config{Client: model, Toolsets: []toolset.Source{ts}, Telemetry: tel})
		if err != nil {
			b.Fatal(err)
		}
		pipeline := func() {
			if _, err := h.Run(ctx, agent.Text("Is my printer ticket open?")); err != nil {
				b.Fatal(err)
			}
		}
		direct := func() { directRound(ctx, model, ts) }
		allocs := testing.AllocsPerRun(200, pipeline) - testing.AllocsPerRun(200, direct)
		// Wall time suffers from whatever else the machine runs; the process's CPU time (GC included) much less.
		var inPipeline, inDirect, cpuPipeline, cpuDirect time.Duration
		for b.Loop() {
			c0, t0 := cpuTime(), time.Now()
			pipeline()
			c1, t1 := cpuTime(), time.Now()
			direct()
			c2, t2 := cpuTime(), time.Now()
			inPipeline += t1.Sub(t0)
			inDirect += t2.Sub(t1)
			cpuPipeline += c1 - c0
			cpuDirect += c2 - c1
		}
		b.ReportMetric(float64(inPipeline-inDirect)/float64(b.N), "added-ns/round")
		b.ReportMetric(float64(cpuPipeline-cpuDirect)/float64(b.N), "added-cpu-ns/round")
		b.ReportMetric(allocs, "added-allocs/round")
	})

	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if text := directRound(ctx, model, ts); text == "" {
				b.Fatal("no answer")
			}
		}
	})
}

// directRound is the hand-written loop: what a program without the pipeline would write.
func directRound(ctx context.Context, model chat.Client, ts *ticketsx.Tickets) string {
	tools, err := ts.Tools(ctx, nil)
	if err != nil {
		panic(err)
	}
	tools = tools[:2] // without close_ticket
	opts := &chat.Options{Model: "m1", Instructions: "You help customers with their support tickets.", Tools: tools}
	msgs := []chat.Message{chat.UserText("Is my printer ticket open?")}
	for {
		resp, err := model.Respond(ctx, msgs, opts)
		if err != nil {
			panic(err)
		}
		msgs = append(msgs, resp.Messages...)
		calls := resp.Messages[len(resp.Messages)-1].ToolCalls()
		if len(calls) == 0 {
			return resp.Messages[len(resp.Messages)-1].Text()
		}
		results := make([]chat.Part, len(calls))
		for i, c := range calls {
			var t *toolset.Tool
			for _, x := range tools {
				if x.Name == c.Name {
					t = x
				}
			}
			res, err := t.Call(ctx, &toolset.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			if err != nil {
				results[i] = chat.ToolResult{CallID: c.ID, Error: err.Error()}
				continue
			}
			results[i] = chat.ToolResult{CallID: c.ID, Result: res}
		}
		msgs = append(msgs, chat.Message{Role: chat.RoleTool, Parts: results})
	}
}

// BenchmarkStreamFirstUpdate measures the time to the first streamed update through the whole pipeline (with
// telemetry) against the provider's client alone, both over the local Chat Completions server.
func BenchmarkStreamFirstUpdate(b *testing.B) {
	ctx := context.Background()
	srv := openaitest.NewServer(openaitest.Reply{Text: "Ticket 4711 is open and waiting for a technician.", TextDelta: 8})
	b.Cleanup(srv.Close)
	client := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)).WithModel("gpt-test")
	ts := &ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}
	tools, err := ts.Tools(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}

	b.Run("pipeline", func(b *testing.B) {
		h, err := agent.NewHost(&supportAgent{}, agent.Config{Client: client, Toolsets: []toolset.Source{ts}, Telemetry: benchTelemetry(b)})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			for _, err := range h.RunStream(ctx, agent.Text("Is my printer ticket open?")) {
				if err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	})
	b.Run("client", func(b *testing.B) {
		opts := &chat.Options{Instructions: "You help customers with their support tickets.", Tools: tools[:2]}
		msgs := []chat.Message{chat.UserText("Is my printer ticket open?")}
		for b.Loop() {
			for _, err := range client.Stream(ctx, msgs, opts) {
				if err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	})
}
