package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestToolErrorsReachTheModel(t *testing.T) {
	tests := []struct {
		name string
		cfg  agent.Config
		call chat.ToolCall
		want string
	}{
		{"error message", agent.Config{}, tc("1", "f", `{}`), "ticket store unavailable"},
		{"hidden details", agent.Config{HideToolErrors: true}, tc("1", "f", `{}`), `tool "f" failed`},
		{"unknown tool", agent.Config{}, tc("1", "nope", `{}`), `unknown tool "nope"; available tools: f, add`},
		{"malformed JSON", agent.Config{}, tc("1", "add", `{"n":`), "invalid JSON"},
		{"wrong type", agent.Config{}, tc("1", "add", `{"n":"x"}`), `"n" must be`},
		{"missing property", agent.Config{}, tc("1", "add", `{}`), `missing required property "n"`},
		{"argument errors are shown even when details are hidden", agent.Config{HideToolErrors: true}, tc("1", "add", `{"m":1}`), `unknown property "m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(call(tt.call), say("ok"))
			h := host(m, tt.cfg, failing("f", "ticket store unavailable"), decoding("add"))
			res, err := h.Run(context.Background(), agent.Text("x"))
			is.NoErr(err) // the run goes on
			is.Equal(res.Text(), "ok")
			got := lastResults(m)["1"]
			is.True(strings.Contains(got.Error, tt.want))
			is.Equal(got.Result, json.RawMessage(nil))
		})
	}
}

func TestHiddenTool(t *testing.T) {
	is := is.New(t)
	m := script(call(tc("1", "close_ticket", `{}`)), say("ok"))
	h, err := agent.NewHost(&picky{}, agent.Config{Client: m, Toolsets: []toolset.Source{newTickets()}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(joined(m.Requests()[0].ToolNames()), "search_tickets,get_ticket")
	got := lastResults(m)["1"].Error
	is.True(strings.Contains(got, `tool "close_ticket" is not available`)) // hidden, not "unknown"
	is.True(!strings.Contains(got, "unknown"))
}

func TestPanickingTool(t *testing.T) {
	is := is.New(t)
	var logs bytes.Buffer
	boom := tool("boom", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("nil map") })
	m := script(call(tc("1", "boom", `{}`), tc("2", "echo", `{"a":1}`)), say("ok"))
	h := host(m, agent.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, boom, echo("echo"))
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(res.Text(), "ok")
	got := lastResults(m)
	is.Equal(got["1"].Error, `tool "boom" failed unexpectedly`)
	is.Equal(string(got["2"].Result), `{"a":1}`)
	is.True(!strings.Contains(got["1"].Error, "nil map")) // the panic value stays with the developer
	is.True(strings.Contains(logs.String(), "nil map"))   // who finds it in the log
	is.True(strings.Contains(logs.String(), "goroutine")) // with the stack
}

// TestPanicWithoutLogger shows where a panic goes when the host has no Logger, as in docs/getting-started.md:
// to slog.Default, with its value and stack; the model still reads only that the tool failed. It changes the
// process's default logger, so it does not run in parallel.
func TestPanicWithoutLogger(t *testing.T) {
	is := is.New(t)
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	boom := tool("boom", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("index out of range [3]") })
	m := script(call(tc("1", "boom", `{}`)), say("ok"))
	h := host(m, agent.Config{}, boom)
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(res.Text(), "ok")
	is.Equal(lastResults(m)["1"].Error, `tool "boom" failed unexpectedly`)
	is.True(strings.Contains(logs.String(), "tool panicked"))
	is.True(strings.Contains(logs.String(), "index out of range [3]"))
	is.True(strings.Contains(logs.String(), "goroutine")) // the stack
}

func TestToolPastItsDeadline(t *testing.T) {
	is := is.New(t)
	release := make(chan struct{})
	defer close(release)
	stuck := tool("stuck", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		<-release // ignores its context
		return json.RawMessage(`1`), nil
	})
	m := script(call(tc("1", "stuck", `{}`)), say("ok"))
	h := host(m, agent.Config{ToolTimeout: 20 * time.Millisecond}, stuck)
	start := time.Now()
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.True(time.Since(start) < 2*time.Second)
	is.Equal(res.Text(), "ok")
	is.True(strings.Contains(lastResults(m)["1"].Error, `tool "stuck" did not finish within 20ms`))
}

func TestHugeResultIsCut(t *testing.T) {
	is := is.New(t)
	huge := tool("huge", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("é", 50_000) + `"`), nil
	})
	m := script(call(tc("1", "huge", `{}`)), say("ok"))
	h := host(m, agent.Config{MaxResultBytes: 1001}, huge)
	_, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	got := lastResults(m)["1"].Result
	is.True(json.Valid(got)) // still JSON: a string holding the start and a note
	var s string
	is.NoErr(json.Unmarshal(got, &s))
	is.True(strings.HasSuffix(s, "é\n[truncated: the result has 100002 bytes; only the first 1001 are shown]"))

	// A cut inside a character keeps only whole characters.
	m3 := script(call(tc("1", "huge", `{}`)), say("ok"))
	_, err = host(m3, agent.Config{MaxResultBytes: 1000}, huge).Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.NoErr(json.Unmarshal(lastResults(m3)["1"].Result, &s))
	is.True(strings.HasSuffix(s, "é\n[truncated: the result has 100002 bytes; only the first 999 are shown]"))
	is.True(len(got) < 1200)

	// Negative means no cap.
	m2 := script(call(tc("1", "huge", `{}`)), say("ok"))
	_, err = host(m2, agent.Config{MaxResultBytes: -1}, huge).Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(len(lastResults(m2)["1"].Result), 100_002)
}

func TestDuplicateCallIDs(t *testing.T) {
	is := is.New(t)
	m := script(
		call(tc("call_0", "echo", `{"a":1}`), tc("call_0", "echo", `{"a":2}`), tc("", "echo", `{"a":3}`)),
		call(tc("call_0", "echo", `{"a":4}`)),
		say("ok"),
	)
	h := host(m, agent.Config{}, echo("echo"))
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	seen := map[string]bool{}
	for _, msg := range res.New {
		for _, c := range msg.ToolCalls() {
			is.True(!seen[c.ID]) // every id unique in the run
			seen[c.ID] = true
		}
	}
	is.Equal(len(seen), 4)
	got := results(res.New)
	is.Equal(len(got), 4) // each call has its own result
	is.Equal(string(got["call_0"].Result), `{"a":1}`)
	is.Equal(string(got["call_0_2"].Result), `{"a":2}`)
	is.Equal(string(got["call_0_3"].Result), `{"a":4}`)
}

func TestToolMiddleware(t *testing.T) {
	is := is.New(t)
	var seen []string
	var mu sync.Mutex
	mw := func(tag string) agent.ToolMiddleware {
		return func(next agent.ToolInvoker) agent.ToolInvoker {
			return func(ctx context.Context, t *toolset.Tool, c *toolset.Call) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, tag+":"+t.Name+":"+c.ID)
				mu.Unlock()
				if c.Run == nil || c.Run.Agent != "tester" {
					return nil, toolset.Retry("no run")
				}
				return next(ctx, t, c)
			}
		}
	}
	m := script(call(tc("1", "a", `{}`), tc("2", "b", `{}`)), say("ok"))
	h := host(m, agent.Config{ToolMiddleware: []agent.ToolMiddleware{mw("outer"), mw("inner")}}, echo("a"), echo("b"))
	_, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(seen, []string{"outer:a:1", "inner:a:1", "outer:b:2", "inner:b:2"})
	is.Equal(string(lastResults(m)["2"].Result), `{}`)
}

func TestConcurrentTools(t *testing.T) {
	is := is.New(t)
	var active, most atomic.Int32
	both := make(chan struct{})
	var once sync.Once
	slow := func(name string) *toolset.Tool {
		return tool(name, func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			n := active.Add(1)
			defer active.Add(-1)
			if n == 2 {
				once.Do(func() { close(both) })
			}
			select {
			case <-both:
			case <-time.After(2 * time.Second):
			}
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			return json.RawMessage(`"` + name + `"`), nil
		})
	}
	m := script(call(tc("1", "a", `{}`), tc("2", "b", `{}`)), say("ok"))
	h := host(m, agent.Config{}, slow("a"), slow("b"))
	_, err := h.Run(context.Background(), agent.Text("x"), settings(`{"concurrent_tools":true}`))
	is.NoErr(err)
	is.Equal(most.Load(), int32(2))
	got := lastResults(m)
	is.Equal(string(got["1"].Result), `"a"`) // results keep the calls' order and ids
	is.Equal(string(got["2"].Result), `"b"`)
}

func TestStuckToolCannotHoldTheRunPastItsDeadline(t *testing.T) {
	is := is.New(t)
	release := make(chan struct{})
	defer close(release)
	stuck := tool("stuck", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		<-release // ignores its context
		return json.RawMessage(`1`), nil
	})
	m := script(call(tc("1", "stuck", `{}`)), say("never"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := host(m, agent.Config{}, stuck).Run(ctx, agent.Text("x"))
	is.True(errors.Is(err, context.DeadlineExceeded))
	is.True(time.Since(start) < 2*time.Second)
	is.Equal(len(m.Requests()), 1)
}
