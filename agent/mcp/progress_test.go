package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/toolset"
)

// progressServer is an in-process MCP server whose tool "index" reports progress three times, or not at all
// when the call carries no progress token. When seen is not nil, the tool returns only after seen has received
// a value for each report: the SDK handles notifications apart from responses, so a report the client has not
// handled when the result arrives may be dropped.
func progressServer(t *testing.T, seen chan struct{}) sdk.Transport {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "indexer", Version: "v1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "index", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return nil, map[string]any{"token": false}, nil
			}
			for i, msg := range []string{"reading", "sorting", "writing"} {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i + 1), Total: 3, Message: msg}); err != nil {
					return nil, nil, err
				}
			}
			for range 3 {
				if seen == nil {
					break
				}
				select {
				case <-seen:
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			}
			return nil, map[string]any{"token": true}, nil
		})
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return clientEnd
}

// TestProgress runs a streamed agent over a server that reports progress: each report reaches the run's stream
// as a progress update of the call, and the call's execute_tool span as an event.
func TestProgress(t *testing.T) {
	is := is.New(t)
	seen := make(chan struct{}, 3)
	srv, err := mcp.Connect(t.Context(), progressServer(t, seen), nil)
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	m := &model{steps: [][]chat.Part{{toolCall("c1", "index", `{}`)}, {chat.Text{Text: "indexed"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv},
		Telemetry: telemetry.New(&telemetry.Options{TracerProvider: tp})})
	is.NoErr(err)

	var got []chat.Progress
	resultAfterProgress := false
	for u, err := range h.RunStream(t.Context(), agent.Text("index it")) {
		is.NoErr(err)
		if u.Progress != nil {
			got = append(got, *u.Progress)
			is.Equal(len(u.Parts), 0)
			seen <- struct{}{}
			continue
		}
		for _, p := range u.Parts {
			if _, ok := p.(chat.ToolResult); ok {
				resultAfterProgress = len(got) == 3
			}
		}
	}
	is.Equal(got, []chat.Progress{
		{CallID: "c1", Progress: 1, Total: 3, Message: "reading"},
		{CallID: "c1", Progress: 2, Total: 3, Message: "sorting"},
		{CallID: "c1", Progress: 3, Total: 3, Message: "writing"},
	})
	is.True(resultAfterProgress) // the reports come before the call's result
	is.Equal(string(m.results()["c1"].Result), `{"token":true}`)

	var events []string
	for _, s := range spans.Ended() {
		if s.Name() == "execute_tool index" {
			for _, e := range s.Events() {
				if e.Name == "mcp.progress" {
					for _, kv := range e.Attributes {
						if kv.Key == "mcp.progress.message" {
							events = append(events, kv.Value.AsString())
						}
					}
				}
			}
		}
	}
	is.Equal(events, []string{"reading", "sorting", "writing"})
}

// TestProgressNotStreamed checks that a run that is not streamed still calls the tool, with its reports dropped.
func TestProgressNotStreamed(t *testing.T) {
	is := is.New(t)
	srv, err := mcp.Connect(t.Context(), progressServer(t, nil), nil)
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })
	m := &model{steps: [][]chat.Part{{toolCall("c1", "index", `{}`)}, {chat.Text{Text: "indexed"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)
	res, err := h.Run(t.Context(), agent.Text("index it"))
	is.NoErr(err)
	is.Equal(res.Text(), "indexed")
	is.Equal(string(m.results()["c1"].Result), `{"token":true}`)
}

// TestProgressAfterTheCall checks that a report made after its call returned — by a tool that leaves work
// running — is dropped instead of reaching a stream that has moved on or ended.
func TestProgressAfterTheCall(t *testing.T) {
	is := is.New(t)
	late := make(chan bool, 1)
	tool := &toolset.Tool{Name: "spawn", Schema: []byte(`{"type":"object","properties":{}}`), ReadOnly: true,
		State: new(toolset.State), Invoke: func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
			chat.ReportProgress(ctx, chat.Progress{CallID: call.ID, Progress: 1})
			go func() {
				time.Sleep(50 * time.Millisecond)
				late <- chat.ReportProgress(ctx, chat.Progress{CallID: call.ID, Progress: 2})
			}()
			return []byte(`"started"`), nil
		}}
	m := &model{steps: [][]chat.Part{{toolCall("c1", "spawn", `{}`)}, {chat.Text{Text: "done"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{toolset.List{tool}}})
	is.NoErr(err)
	var got []float64
	for u, err := range h.RunStream(t.Context(), agent.Text("go")) {
		is.NoErr(err)
		if u.Progress != nil {
			got = append(got, u.Progress.Progress)
		}
	}
	is.True(<-late) // the reporter was there, and dropped the report
	is.Equal(got, []float64{1})
}
