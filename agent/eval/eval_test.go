package eval_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/cassette"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// Support answers customers' questions about their tickets.
type Support struct{ agent.Agent }

func (a *Support) Declare() {
	a.WithInstructions("You help customers with their support tickets.")
	a.WithModel("openai", "gpt-4.1-mini")
	a.WithMaxIterations(6)
	agent.Use[*ticketsx.Tickets](a)
}

// TypeshiftDeclaration is what `go generate` writes for Support (here by hand).
func (a *Support) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Support", Uses: []agent.UseDeclaration{{Index: 0}}}
}

// scriptedModel is the model the cassettes were recorded from when no key is at hand: a local server in the
// Chat Completions wire format that picks a tool from the user's words, and answers from the tool's result.
type scriptedModel struct {
	// byDescription picks, for a question naming a ticket, the first offered tool whose description says it
	// finds "one ticket", as a model reads descriptions to choose.
	byDescription bool
	// ignorePlan asks for close_ticket in plan mode too, where the host does not offer it.
	ignorePlan bool

	mu     sync.Mutex
	calls  int
	flakes int // questions marked "(flaky)" asked so far
}

var number = regexp.MustCompile(`\b\d{3,}\b`)

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	var text string
	if json.Unmarshal(last.Content, &text) != nil {
		var parts []struct{ Text string }
		_ = json.Unmarshal(last.Content, &parts)
		for _, p := range parts {
			text += p.Text
		}
	}
	var user string
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			_ = json.Unmarshal(msg.Content, &user)
		}
	}
	message := map[string]any{"role": "assistant"}
	finish := "stop"
	lower := strings.ToLower(user)
	n := number.FindString(user)
	planning := false
	for _, tool := range req.Tools {
		planning = planning || tool.Function.Name == "exit_plan_mode"
	}
	flake := 0
	if strings.Contains(lower, "(flaky)") && last.Role == "user" {
		m.mu.Lock()
		m.flakes++
		flake = m.flakes
		m.mu.Unlock()
	}
	switch {
	case flake%2 == 0 && flake > 0: // every second time, the flaky model searches where it should read
		message["tool_calls"] = []any{toolCall("call_search", "search_tickets", `{"query":"`+n+`"}`)}
		finish = "tool_calls"
	case planning && !m.ignorePlan && last.Role == "tool" && strings.Contains(lower, "close"):
		message["tool_calls"] = []any{toolCall("call_plan", "exit_plan_mode", `{"plan":"1. Close ticket `+n+`, giving the customer's reason.\n2. Tell the customer."}`)}
		finish = "tool_calls"
	case planning && !m.ignorePlan && strings.Contains(lower, "close") && n != "":
		message["tool_calls"] = []any{toolCall("call_read", "get_ticket", `{"number":`+n+`}`)}
		finish = "tool_calls"
	case last.Role == "tool" && strings.Contains(lower, "json"):
		message["content"] = `{"number":` + n + `,"open":` + fmt.Sprint(strings.Contains(text, `"open"`)) + `}`
	case last.Role == "tool" && strings.Contains(lower, "close") && (text == "null" || text == ""):
		message["content"] = "Ticket " + n + " is closed."
	case last.Role == "tool":
		message["content"] = "Here is what I found: " + text
	case strings.Contains(lower, "close") && n != "":
		message["tool_calls"] = []any{toolCall("call_close", "close_ticket", `{"number":`+n+`,"reason":"Resolved at the customer's request."}`)}
		finish = "tool_calls"
	case strings.Contains(lower, "compare") && n != "":
		ns := number.FindAllString(user, 2)
		message["tool_calls"] = []any{toolCall("call_a", "get_ticket", `{"number":`+ns[0]+`}`), toolCall("call_b", "get_ticket", `{"number":`+ns[len(ns)-1]+`}`)}
		finish = "tool_calls"
	case n != "" && m.byDescription:
		for _, tool := range req.Tools {
			if !strings.Contains(strings.ToLower(tool.Function.Description), "one ticket") {
				continue
			}
			args := `{"number":` + n + `}`
			if tool.Function.Name == "search_tickets" {
				args = `{"query":"` + n + `"}`
			}
			message["tool_calls"] = []any{toolCall("call_pick", tool.Function.Name, args)}
			finish = "tool_calls"
			break
		}
		if finish != "tool_calls" {
			message["content"] = "I have no tool for that."
		}
	case n != "":
		message["tool_calls"] = []any{toolCall("call_get", "get_ticket", `{"number":`+n+`}`)}
		finish = "tool_calls"
	case strings.Contains(lower, "printer") || strings.Contains(lower, "search"):
		message["tool_calls"] = []any{toolCall("call_search", "search_tickets", `{"query":"printer"}`)}
		finish = "tool_calls"
	default:
		message["content"] = "I can look up, search and close your support tickets."
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-eval", "object": "chat.completion", "created": 1764733200, "model": "gpt-4.1-mini-2025-04-14",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
	})
}

func toolCall(id, name, args string) map[string]any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

// newHost returns a host of Support whose model's exchanges are the case's cassette: replayed by default,
// recorded from the scripted model with TYPESHIFT_RECORD=1.
func newHost(t *testing.T, c *eval.Case) *agent.Host {
	t.Helper()
	return tracedHost(t, c, nil)
}

// tracedHost is newHost with the host's telemetry.
func tracedHost(t *testing.T, c *eval.Case, ins *telemetry.Instrumentation) *agent.Host {
	t.Helper()
	return configuredHost(t, c, func(cfg *agent.Config) { cfg.Telemetry = ins })
}

// configuredHost is newHost with its configuration changed by change.
func configuredHost(t *testing.T, c *eval.Case, change func(*agent.Config)) *agent.Host {
	t.Helper()
	rec := cassette.New(t, filepath.Join("testdata", "cassettes", c.Name+".txt"), nil)
	baseURL := "http://127.0.0.1:1" // never dialled on replay
	if rec.Mode() == cassette.Record {
		srv := httptest.NewServer(&scriptedModel{})
		t.Cleanup(srv.Close)
		baseURL = srv.URL
	}
	client := openai.New(option.WithBaseURL(baseURL), option.WithAPIKey("sk-test"), option.WithHTTPClient(rec.Client()),
		option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	cfg := agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client:   client,
	}
	change(&cfg)
	host, err := agent.NewHost(&Support{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return host
}

// spanRecorder returns an instrumentation whose spans a recorder keeps, with the recorder.
func spanRecorder() (*telemetry.Instrumentation, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	return telemetry.New(&telemetry.Options{TracerProvider: tp}), rec
}

// price is the price the cases' max_cost is checked against, where a case gives none.
var price = &eval.Price{InputPerMillion: 0.4, OutputPerMillion: 1.6}

// Every case of testdata/cases passes on a real Host, replayed from its cassette through the OpenAI SDK.
func TestCases(t *testing.T) {
	is := is.New(t)
	cases, err := eval.Load(os.DirFS("testdata"), "cases")
	is.NoErr(err)
	is.True(len(cases) >= 6)
	ins, spans := spanRecorder()
	results := eval.RunCases(t, cases, func(t *testing.T, c *eval.Case) *agent.Host { return tracedHost(t, c, ins) },
		&eval.Options{Spans: spans.Ended, Price: price})
	is.Equal(len(results), len(cases))
	for _, r := range results {
		is.True(len(r.Scores) > 0) // every case scores something
	}
}
