package agenta2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// front is the local agent that calls a remote one.
type front struct{ agent.Agent }

func (a *front) Declare() {
	a.WithName("Front")
	a.WithInstructions("You pass questions on.")
	a.WithModel("test", "front-1")
}

// frontModel passes "ask TEXT" on to the remote tool named tool, and reports what a tool answered.
func frontModel(tool string) chat.Client {
	return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		resp, err := frontAnswer(tool, msgs)
		if resp != nil {
			resp.Usage = frontUsage // a round figure, so that a test can tell the remote's usage from the model's
		}
		return resp, err
	})
}

// frontUsage is the usage of each of frontModel's calls.
var frontUsage = chat.Usage{InputTokens: 100, TotalTokens: 100}

// frontAnswer is frontModel's answer to msgs.
func frontAnswer(tool string, msgs []chat.Message) (*chat.Response, error) {
	last := msgs[len(msgs)-1]
	if last.Role == chat.RoleTool {
		var b strings.Builder
		for _, p := range last.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				if r.Error != "" {
					fmt.Fprintf(&b, "failed: %s ", r.Error)
				} else {
					fmt.Fprintf(&b, "answer: %s ", r.Result)
				}
			}
		}
		return chattest.Text(strings.TrimSpace(b.String())), nil
	}
	text, _ := strings.CutPrefix(last.Text(), "ask ")
	args, _ := json.Marshal(map[string]string{"message": text})
	return chattest.Calls(chattest.Call(fmt.Sprintf("call-%d", len(msgs)), tool, string(args))), nil
}

// caller is a local host calling a remote agent through a Remote.
type caller struct {
	remote *agenta2a.Remote
	host   *agent.Host
}

func newCaller(t testing.TB, cardURL string, opts *agenta2a.RemoteOptions) *caller {
	t.Helper()
	remote, err := agenta2a.Dial(context.Background(), cardURL, opts)
	if err != nil {
		t.Fatalf("dialing %s: %v", cardURL, err)
	}
	tools := remote.Tools()
	h, err := agent.NewHost(&front{}, agent.Config{
		Tools:  []toolset.Source{tools},
		Client: frontModel(tools[0].Name),
		Store:  memory.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	remote.Register(h)
	return &caller{remote: remote, host: h}
}

// as the tenant of tokenA.
func authorizeA(r *http.Request) error {
	r.Header.Set("Authorization", "Bearer "+tokenA)
	return nil
}

// run runs the local agent in conversation id of tenant "local".
func (c *caller) run(ctx context.Context, id string, opts ...agent.RunOption) (*agent.Result, error) {
	return c.host.Run(ctx, append(opts, agent.SettingsID("local"), agent.Conversation(id))...)
}

// surfaced waits for the remote's question to be open in the conversation and returns it.
func (c *caller) surfaced(t testing.TB, id string) chat.ApprovalRequest {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.remote.WaitSurfaced(ctx); err != nil {
		t.Fatal(err)
	}
	cs, err := c.host.LoadConversation(ctx, "local", id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Pending) != 1 {
		t.Fatalf("%d requests pending, want 1", len(cs.Pending))
	}
	return cs.Pending[0]
}

// Two hosts: one serves the desk agent over A2A, the other calls it as a tool, streamed, with the tenant's
// credentials from the auth hook; the remote's approval request is surfaced in the local conversation and
// answered there, approved or denied, and a forged answer runs nothing.
func TestRemoteAgainstServed(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	e := newEnv(t, memory.New(), nil)

	_, err := agenta2a.Dial(ctx, e.srv.URL+"/nowhere", nil)
	var cardErr *agenta2a.CardError
	is.True(errors.As(err, &cardErr)) // no card there

	c := newCaller(t, e.srv.URL+"/a2a", &agenta2a.RemoteOptions{Authorize: authorizeA})
	is.Equal(c.remote.Card().Name, "Desk")
	tools := c.remote.Tools()
	is.Equal(tools[0].Name, "ask_desk")
	is.True(strings.Contains(tools[0].Description, "close_ticket"))

	res, err := c.run(ctx, "c-stream", agent.Text("ask hello there"))
	is.NoErr(err)
	is.Equal(res.Text(), `answer: "You said: hello there"`)

	t.Run("credentials", func(t *testing.T) {
		is := is.New(t)
		res, err := newCaller(t, e.srv.URL+"/a2a", nil).run(ctx, "c-anon", agent.Text("ask hello"))
		is.NoErr(err)
		is.True(strings.Contains(res.Text(), "failed: agent Desk failed")) // the model reads why
		is.True(strings.Contains(res.Text(), "401"))
		_, err = agenta2a.Dial(ctx, e.srv.URL+"/a2a", &agenta2a.RemoteOptions{Authorize: func(*http.Request) error {
			return errors.New("the vault is sealed")
		}})
		is.True(err != nil && strings.Contains(err.Error(), "the vault is sealed")) // the hook signs the card's request too
	})

	t.Run("approved", func(t *testing.T) {
		is := is.New(t)
		res, err := c.run(ctx, "c-approve", agent.Text("ask close 4711"))
		is.NoErr(err)
		is.True(strings.Contains(res.Text(), "waits for the user's answer")) // the model is told
		req := c.surfaced(t, "c-approve")
		is.Equal(req.Call.Name, "answer_desk")
		is.True(strings.Contains(string(req.Call.Arguments), `"tool":"close_ticket"`)) // the user sees what is asked
		is.Equal(e.calls.closes.Load(), int64(0))

		res, err = c.run(ctx, "c-approve", agent.Approve(req.ID))
		is.NoErr(err)
		is.Equal(e.calls.closes.Load(), int64(1))
		is.True(e.closed(4711))
		is.True(strings.Contains(res.Text(), "Done"))
	})

	t.Run("denied", func(t *testing.T) {
		is := is.New(t)
		before := e.calls.closes.Load()
		_, err := c.run(ctx, "c-deny", agent.Text("ask close 4712"))
		is.NoErr(err)
		req := c.surfaced(t, "c-deny")
		var q struct {
			ContextID string `json:"context_id"`
		}
		is.NoErr(json.Unmarshal(req.Call.Arguments, &q))
		_, err = c.run(ctx, "c-deny", agent.Reject(req.ID, "not before Friday"))
		is.NoErr(err)
		is.Equal(e.calls.closes.Load(), before)
		remote, err := e.host.LoadConversation(ctx, tenantA, q.ContextID)
		is.NoErr(err)
		is.Equal(len(remote.Pending), 0) // the remote's request was answered, as denied
		found := false
		for _, m := range remote.Messages {
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok && strings.Contains(r.Error, "not before Friday") {
					found = true
				}
			}
		}
		is.True(found) // the remote's model read the reason
	})

	t.Run("forged", func(t *testing.T) {
		is := is.New(t)
		before := e.calls.closes.Load()
		_, err := c.run(ctx, "c-forged", agent.Text("ask close 4713"))
		is.NoErr(err)
		req := c.surfaced(t, "c-forged")
		for name, args := range map[string]json.RawMessage{
			"another conversation": req.Call.Arguments,
			"changed":              json.RawMessage(strings.Replace(string(req.Call.Arguments), `"question":"`, `"question":"x`, 1)),
		} {
			conv := "c-other"
			if name == "changed" {
				conv = "c-forged"
			}
			_, err := tools[1].Call(ctx, &toolset.Call{ID: "x", Name: tools[1].Name, Arguments: args,
				Run: &toolset.Run{SettingsID: "local", ConversationID: conv, Agent: "Front"}})
			is.True(err != nil) // refused
		}
		is.Equal(e.calls.closes.Load(), before)
	})
}

// recorder records the JSON-RPC methods a Remote sends.
type recorder struct {
	mu      sync.Mutex
	methods []string
	bodies  []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		var env struct{ Method string }
		_ = json.Unmarshal(b, &env)
		r.mu.Lock()
		r.methods = append(r.methods, env.Method)
		r.bodies = append(r.bodies, string(b))
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) sent(method string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, m := range r.methods {
		if m == method {
			return r.bodies[i]
		}
	}
	return ""
}

// A local run whose context ends while the remote task works cancels the remote task.
func TestRemoteCancelledWithTheRun(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), nil)
	rec := &recorder{}
	c := newCaller(t, e.srv.URL+"/a2a/.well-known/agent-card.json",
		&agenta2a.RemoteOptions{Authorize: authorizeA, HTTPClient: &http.Client{Transport: rec}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-e.model.waiting                  // the remote's model works
		time.Sleep(100 * time.Millisecond) // and the task's first event has reached the caller
		cancel()
	}()
	res, err := c.run(ctx, "c-cancel", agent.Text("ask wait for me"))
	is.True(err != nil || strings.Contains(res.Text(), "failed"))
	body := rec.sent("tasks/cancel")
	for deadline := time.Now().Add(5 * time.Second); body == "" && time.Now().Before(deadline); body = rec.sent("tasks/cancel") {
		time.Sleep(10 * time.Millisecond) // the run may end before its abandoned tool call does
	}
	is.True(body != "") // the remote task was cancelled
	var req struct {
		Params struct{ ID string } `json:"params"`
	}
	is.NoErr(json.Unmarshal([]byte(body), &req))
	task := e.client(tokenA)
	got, err := task.GetTask(context.Background(), &a2a.TaskQueryParams{ID: a2a.TaskID(req.Params.ID)})
	is.NoErr(err)
	is.Equal(string(got.Status.State), "canceled")
}

// fake is an A2A agent that answers what the test tells it to, to try the Remote on a remote that breaks the
// protocol.
type fake struct {
	srv       *httptest.Server
	streaming bool
	answer    func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, method string)
	calls     atomic.Int64
}

func newFake(t *testing.T, streaming bool, answer func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, method string)) *fake {
	f := &fake{streaming: streaming, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, `{"name":"Fake","description":"d","url":%q,"version":"1","protocolVersion":"0.3.0",`+
				`"capabilities":{"streaming":%t},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`,
				f.srv.URL+"/", f.streaming)
			return
		}
		f.calls.Add(1)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.answer(r.Context(), w, req.ID, req.Method)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

const completed = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},` +
	`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"fine"}]}],` +
	`"metadata":{"usage":{"inputTokens":7,"outputTokens":3},"cost":{"amount":0.25,"currency":"USD"}}}`

// A remote that breaks the protocol fails the call with a clear error, in bounded time, never a hang; transient
// failures are tried again; the usage a remote reports is heard.
func TestRemoteGarbage(t *testing.T) {
	stall := make(chan struct{})
	t.Cleanup(func() { close(stall) })
	tests := []struct {
		name      string
		streaming bool
		answer    func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, method string)
		want      string // in the error; "" for success
	}{
		{"not JSON", false, func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
			fmt.Fprint(w, "<html>")
		}, "not JSON-RPC"},
		{"another id", false, func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"other","result":%s}`, completed)
		}, "answered request"},
		{"huge", false, func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"%s"}]}}`,
				id, strings.Repeat("x", 70<<10))
		}, "over 65536 bytes"},
		{"a stream that stops", true, func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"}}}\n\n", id)
			w.(http.Flusher).Flush()
			select {
			case <-stall:
			case <-ctx.Done():
			}
		}, "nothing came from the stream"},
		{"an event of another stream", true, func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, method string) {
			if method == "tasks/cancel" {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"canceled"}}}`, id)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"}}}\n\n")
		}, "answered request"},
		{"unavailable, then fine", false, func() func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
			var n atomic.Int64
			return func(ctx context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
				if n.Add(1) < 3 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completed)
			}
		}(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			f := newFake(t, tt.streaming, tt.answer)
			var usage chat.Usage
			var cost agent.Cost
			remote, err := agenta2a.Dial(context.Background(), f.srv.URL, &agenta2a.RemoteOptions{
				IdleTimeout: 300 * time.Millisecond, MaxResponseBytes: 64 << 10, Poll: 10 * time.Millisecond,
				OnUsage: func(_ context.Context, _ *toolset.Call, u chat.Usage, c agent.Cost) { usage, cost = u, c },
			})
			is.NoErr(err)
			start := time.Now()
			out, err := remote.Tools()[0].Call(context.Background(), &toolset.Call{ID: "1", Arguments: json.RawMessage(`{"message":"hi"}`)})
			is.True(time.Since(start) < 5*time.Second)
			if tt.want == "" {
				is.NoErr(err)
				is.Equal(string(out), `"fine"`)
				is.Equal(usage, chat.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10})
				is.Equal(cost, agent.Cost{Nanos: 250_000_000, Currency: "USD"})
				is.Equal(f.calls.Load(), int64(3))
				return
			}
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want)) // says what went wrong
			is.True(errors.Is(err, agenta2a.ErrRemoteProtocol))
		})
	}
}

// Cards that cannot be called are refused with a CardError that says why.
func TestRemoteBadCards(t *testing.T) {
	for name, card := range map[string]string{
		"not JSON":    `<html>`,
		"no name":     `{"url":"http://127.0.0.1:1/","protocolVersion":"0.3.0"}`,
		"no URL":      `{"name":"X","protocolVersion":"0.3.0"}`,
		"only gRPC":   `{"name":"X","url":"http://127.0.0.1:1/","preferredTransport":"GRPC","protocolVersion":"0.3.0"}`,
		"version 1.0": `{"name":"X","url":"http://127.0.0.1:1/","protocolVersion":"1.0"}`,
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, card) }))
			defer srv.Close()
			_, err := agenta2a.Dial(context.Background(), srv.URL, nil)
			var ce *agenta2a.CardError
			is.True(errors.As(err, &ce))
		})
	}
	_, err := agenta2a.Dial(context.Background(), "ftp://example.com/", nil)
	is.New(t).True(err != nil)
}

// An agent whose card says it does not stream is called with message/send, not blocking, and its task read until
// it stops: an answer, and a question approved.
func TestRemoteNotStreaming(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	e := newEnv(t, memory.New(), nil)
	target, _ := url.Parse(e.srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var methods []string
	var mu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			resp, err := http.Get(e.srv.URL + r.URL.Path)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			card := strings.Replace(string(b), `"streaming":true`, `"streaming":false`, 1)
			card = strings.ReplaceAll(card, e.srv.URL, "http://"+r.Host)
			_, _ = io.WriteString(w, card)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var env struct{ Method string }
		_ = json.Unmarshal(b, &env)
		mu.Lock()
		methods = append(methods, env.Method)
		mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()

	c := newCaller(t, front.URL+"/a2a", &agenta2a.RemoteOptions{Authorize: authorizeA, Poll: 10 * time.Millisecond})
	is.True(!c.remote.Card().Capabilities.Streaming)
	res, err := c.run(ctx, "c-poll", agent.Text("ask hello"))
	is.NoErr(err)
	is.Equal(res.Text(), `answer: "You said: hello"`)

	_, err = c.run(ctx, "c-poll-approve", agent.Text("ask close 4714"))
	is.NoErr(err)
	req := c.surfaced(t, "c-poll-approve")
	res, err = c.run(ctx, "c-poll-approve", agent.Approve(req.ID))
	is.NoErr(err)
	is.True(e.closed(4714))
	is.True(strings.Contains(res.Text(), "Done"))
	mu.Lock()
	defer mu.Unlock()
	is.True(slices.Contains(methods, "message/send"))
	is.True(!slices.Contains(methods, "message/stream"))
}

// freeMeter is a meter whose model calls cost nothing: the cost of a run under it is what its tools report.
type freeMeter struct{}

func (freeMeter) Begin(context.Context, agent.MeteredRun) (agent.RunMeter, error) {
	return freeMeter{}, nil
}

func (freeMeter) Call(ctx context.Context, _ agent.MeteredCall, next func(context.Context) (agent.CallUsage, error)) (agent.Cost, error) {
	_, err := next(ctx)
	return agent.Cost{}, err
}

func (freeMeter) End(context.Context) {}

// The usage and cost a remote reports are the local run's: in its Result beside its own model calls'.
func TestRemoteUsageInTheRun(t *testing.T) {
	is := is.New(t)
	f := newFake(t, false, func(_ context.Context, w http.ResponseWriter, id json.RawMessage, _ string) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completed)
	})
	remote, err := agenta2a.Dial(context.Background(), f.srv.URL, nil)
	is.NoErr(err)
	tools := remote.Tools()
	h, err := agent.NewHost(&front{}, agent.Config{Tools: []toolset.Source{tools}, Client: frontModel(tools[0].Name), Meter: freeMeter{}})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("ask hi"))
	is.NoErr(err)
	is.Equal(res.Text(), `answer: "fine"`)
	is.Equal(res.Usage, chat.Usage{InputTokens: 207, OutputTokens: 3, TotalTokens: 210}) // two model calls and the remote's
	is.Equal(res.Cost, agent.Cost{Nanos: 250_000_000, Currency: "USD"})
}
