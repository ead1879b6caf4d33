package background_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// The background run holds the caller's standing approvals (a copy) and runs in the caller's mode.
func TestStandingApprovalsAndMode(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		// The caller's model first calls its own refund tool (same identity as Billing's), then starts Billing.
		front := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			last := msgs[len(msgs)-1]
			switch {
			case last.Role == chat.RoleUser && last.Text() == "refund":
				return chattest.Calls(chattest.Call("r0", "refund", `{"invoice":11}`)), nil
			case last.Role == chat.RoleTool && slices.ContainsFunc(last.Parts, func(p chat.Part) bool { r, ok := p.(chat.ToolResult); return ok && r.CallID == "r0" }):
				return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Refund invoice 12."}`)), nil
			case last.Role == chat.RoleUser && last.Text() == "plan":
				return chattest.Calls(chattest.Call("s2", "start_billing", `{"task":"Plan a refund."}`)), nil
			}
			return chattest.Text("ok"), nil
		})
		var mu sync.Mutex
		var offered [][]string
		billing := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			var names []string
			for _, tl := range opts.Tools {
				names = append(names, tl.Name)
			}
			mu.Lock()
			offered = append(offered, names)
			mu.Unlock()
			return billingRefunds().Respond(ctx, msgs, opts)
		})
		f := newFixture(t, store, background.Options{}, front, billing)
		// The caller offers a refund tool of the same identity, so the user can approve it for good.
		own := 0
		frontRefund := &toolset.Tool{Name: "refund", Description: "Refunds.", ID: "test.refund", RequiresApproval: true,
			Schema: json.RawMessage(`{"type":"object"}`), State: &toolset.State{},
			Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
				own++
				return json.RawMessage(`"ok"`), nil
			}}
		var err error
		f.front, err = agent.NewHost(&Frontdesk{}, agent.Config{Client: front, Store: store,
			Tools: []toolset.Source{f.m.Tools(f.billing), toolset.List{frontRefund}}})
		is.NoErr(err)
		f.m.Register(f.front)

		res := f.run(t, tenant, "conv-1", agent.Text("refund"))
		is.Equal(len(res.Pending), 1)
		res = f.run(t, tenant, "conv-1", agent.ApproveAlways(res.Pending[0].ID, chat.ForTool))
		is.Equal(own, 1)
		id := handleIn(res.Messages)[0]
		st := f.final(t, tenant, "conv-1", id)
		// The standing approval held in the background run: it did not wait, and its refund ran.
		is.Equal(st.Status, background.StatusSucceeded)
		is.Equal(st.Result, "refunded invoice 12")
		is.Equal(f.refunds.Load(), int32(1))
		is.True(len(st.Job.Standing) > 0)

		// In plan mode the background run is in plan mode: refund is not offered.
		res = f.run(t, tenant, "conv-2", agent.Text("plan"), agent.Mode(agent.ModePlan))
		id = handleIn(res.Messages)[0]
		st = f.final(t, tenant, "conv-2", id)
		is.Equal(st.Job.Mode, agent.ModePlan)
		mu.Lock()
		last := offered[len(offered)-1]
		mu.Unlock()
		is.True(!slices.Contains(last, "refund"))
		is.True(slices.Contains(last, "exit_plan_mode"))
	})
}

// The background run's span links to the span of the tool call that started it; its agent's spans nest under it.
func TestSpanLinksToTheStartingCall(t *testing.T) {
	is := is.New(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	in := telemetry.New(&telemetry.Options{TracerProvider: tp})

	store := memory.New()
	billing, err := agent.NewHost(&Billing{}, agent.Config{Store: store, Telemetry: in, Client: chattest.NewScript(chattest.Text("paid"))})
	is.NoErr(err)
	m := background.New(background.NewLocalQueue(store, ""), background.Options{TracerProvider: tp})
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{Store: store, Telemetry: in, Client: starter(1, "Paid?"),
		Tools: []toolset.Source{m.Tools(billing)}})
	is.NoErr(err)
	m.Register(front)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Work(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	f := &fixture{store: store, m: m, front: front}
	res := f.run(t, tenant, "conv-1", agent.Text("go"))
	id := handleIn(res.Messages)[0]
	f.final(t, tenant, "conv-1", id)

	var call, bg, sub sdktrace.ReadOnlySpan
	waitFor(t, "the spans", func() bool {
		for _, s := range rec.Ended() {
			switch s.Name() {
			case "execute_tool start_billing":
				call = s
			case "background_agent Billing":
				bg = s
			case "invoke_agent Billing":
				sub = s
			}
		}
		return call != nil && bg != nil && sub != nil
	})
	is.Equal(len(bg.Links()), 1)
	is.Equal(bg.Links()[0].SpanContext.SpanID(), call.SpanContext().SpanID())
	is.Equal(bg.Links()[0].SpanContext.TraceID(), call.SpanContext().TraceID())
	is.True(bg.SpanContext().TraceID() != call.SpanContext().TraceID()) // a trace of its own
	is.Equal(sub.Parent().SpanID(), bg.SpanContext().SpanID())
}

// A job's standing approvals keep the JSON form queues stored before they were typed values.
func TestJobStandingJSON(t *testing.T) {
	is := is.New(t)
	var job background.Job
	is.NoErr(json.Unmarshal([]byte(`{"id":"j1","standing":[{"tool_id":"test.refund"},{"tool_id":"test.refund","args":"{\"invoice\":12}"}]}`), &job))
	is.Equal(job.Standing, []agent.StandingApproval{{ToolID: "test.refund"}, {ToolID: "test.refund", Args: `{"invoice":12}`}})
	data, err := json.Marshal(job)
	is.NoErr(err)
	is.True(strings.Contains(string(data), `"standing":[{"tool_id":"test.refund"},{"tool_id":"test.refund","args":"{\"invoice\":12}"}]`))
	data, err = json.Marshal(background.Job{ID: "j2"})
	is.NoErr(err)
	is.True(!strings.Contains(string(data), "standing")) // none: left out
}
