package telemetry_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
)

// A run's spans: the agent's, a chat call under it, and a tool call.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	in := telemetry.New(&telemetry.Options{TracerProvider: tp})

	model := in.Client(chattest.NewScript(chattest.Calls(chattest.Call("call_1", "get_ticket", `{"number":4711}`))), "openai")
	ctx, run := in.StartAgent(context.Background(), "support", "c-1")
	resp, _ := model.Respond(ctx, []chat.Message{chat.UserText("Is 4711 open?")}, &chat.Options{Model: "gpt-4.1-mini"})
	_, tool := in.StartTool(ctx, resp.Messages[0].ToolCalls()[0], "")
	tool.End([]byte(`{"status":"open"}`), nil)
	run.End(resp.Usage, nil)

	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind())
	}
	// Output:
	// chat gpt-4.1-mini client
	// execute_tool get_ticket internal
	// invoke_agent support internal
}
