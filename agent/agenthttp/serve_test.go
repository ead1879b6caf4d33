package agenthttp_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestClientDisconnects: a client that leaves in the middle of a run leaves the run to finish; the conversation
// holds the whole run and is free for the next one.
func TestClientDisconnects(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID

		ctx, cancel := context.WithCancel(context.Background())
		r, _ := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/conversations/"+id+"/runs", strings.NewReader(`{"text":"wait"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		r.Header.Set("Authorization", "Bearer "+tokenA)
		errc := make(chan error, 1)
		go func() {
			resp, err := e.srv.Client().Do(r)
			if err == nil {
				_, err = bufio.NewReader(resp.Body).ReadString('\n')
				resp.Body.Close()
			}
			errc <- err
		}()
		<-e.model.waiting
		cancel()
		is.True(<-errc != nil) // the client is gone
		close(e.model.release)

		// The run goes on to its end: wait for its run_end entry (the wait is bounded, not timed).
		deadline := time.Now().Add(20 * time.Second)
		for {
			list, err := s.LoadAll(context.Background(), tenantA, id)
			is.NoErr(err)
			last := list[len(list)-1]
			if last.Type == storage.EntryRunEnd && strings.Count(entryTypes(list), "run_end") == 2 {
				is.True(strings.Contains(entryTypes(list), "tool_results")) // the tool ran after the client left
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the run did not end: %s", entryTypes(list))
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The claim is released just after the run's end is stored.
		for {
			resp := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "again"}})
			if resp.status == http.StatusOK {
				break
			}
			is.Equal(resp.status, http.StatusConflict)
			if time.Now().After(deadline) {
				t.Fatal("the conversation stayed busy")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func entryTypes(list []storage.Entry) string {
	var b strings.Builder
	for _, e := range list {
		b.WriteString(string(e.Type) + " ")
	}
	return b.String()
}

func TestWatch(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID

		lines, resp := e.watch(id, nil)
		is.Equal(resp.StatusCode, http.StatusOK)
		is.Equal(resp.Header.Get("Content-Type"), "text/event-stream")
		is.Equal(<-lines, ": watching\n")

		// The watch follows from when its subscription is made, which the stream cannot announce: run until the
		// watcher sees a run (the first run may come before the subscription).
		var seen strings.Builder
		for try := 0; !strings.Contains(seen.String(), "event: text"); try++ {
			if try == 20 {
				t.Fatalf("the watcher saw no run: %s", seen.String())
			}
			run := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
				body: map[string]any{"text": "search printer"}, header: map[string]string{"Accept": "text/event-stream"}})
			is.Equal(run.status, http.StatusOK)
			for drained := false; !drained; {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the watch stream ended: %s", seen.String())
					}
					seen.WriteString(l)
				case <-time.After(200 * time.Millisecond):
					drained = true
				}
			}
		}
		is.True(strings.Contains(seen.String(), "event: tool_call"))
		is.True(strings.Contains(seen.String(), "event: tool_result"))

		is.True(strings.Contains(seen.String(), "id: "))

		// A reconnect resumes after the last event it received: the events after it, none twice, none lost.
		first := events(t, []byte(seen.String()))
		cut := -1
		for i, ev := range first {
			if ev.id != "" && i < len(first)-2 {
				cut = i // an event in the middle that carries an id
			}
		}
		is.True(cut >= 0)
		lines, resp = e.watch(id, map[string]string{"Last-Event-ID": first[cut].id})
		is.Equal(resp.StatusCode, http.StatusOK)
		var again strings.Builder
		want := first[cut+1:]
		for len(events(t, []byte(again.String()))) < len(want) {
			select {
			case l := <-lines:
				again.WriteString(l)
			case <-time.After(10 * time.Second):
				t.Fatalf("the resumed stream stopped at %s; want %d events", again.String(), len(want))
			}
		}
		is.Equal(events(t, []byte(again.String())), want)

		bad := e.do(req{method: "GET", path: "/conversations/" + id + "/events", token: tokenA, header: map[string]string{"Last-Event-ID": "x"}})
		is.Equal(bad.status, http.StatusBadRequest)
	})
}

// watch opens the watch stream of a conversation of tenant A and returns its lines as they come.
func (e *env) watch(id string, header map[string]string) (<-chan string, *http.Response) {
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	r, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/conversations/"+id+"/events", nil)
	r.Header.Set("Authorization", "Bearer "+tokenA)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	return lines, resp
}

// TestWatchOtherInstance follows a run of another instance: two handlers, each with its own pool, on one Postgres.
func TestWatchOtherInstance(t *testing.T) {
	is := is.New(t)
	first, open := openPostgresPair(t)
	runner, watcher := newEnv(t, first), newEnv(t, open())
	id := runner.create(tokenA, "hello").ConversationID
	lines, resp := watcher.watch(id, nil)
	is.Equal(resp.StatusCode, http.StatusOK)
	var seen strings.Builder
	for try := 0; !strings.Contains(seen.String(), "event: tool_result"); try++ {
		if try == 20 {
			t.Fatalf("the other instance's watcher saw no run: %s", seen.String())
		}
		run := runner.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
			body: map[string]any{"text": "search printer"}, header: map[string]string{"Accept": "text/event-stream"}})
		is.Equal(run.status, http.StatusOK)
		for drained := false; !drained; {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the other instance's watch ended: %s\n%s", seen.String(), runner.logs)
				}
				seen.WriteString(l)
			case <-time.After(300 * time.Millisecond):
				drained = true
			}
		}
	}
	is.True(strings.Contains(seen.String(), "event: tool_call"))

	// Resuming on the other instance, after an event the first one sent: the same events follow.
	sent := events(t, []byte(seen.String()))
	cut := -1
	for i, ev := range sent {
		if ev.id != "" && i < len(sent)-2 {
			cut = i
		}
	}
	is.True(cut >= 0)
	resumed, _ := runner.watch(id, map[string]string{"Last-Event-ID": sent[cut].id})
	var again strings.Builder
	for len(events(t, []byte(again.String()))) < len(sent)-cut-1 {
		select {
		case l := <-resumed:
			again.WriteString(l)
		case <-time.After(10 * time.Second):
			t.Fatalf("the resumed stream stopped at %s", again.String())
		}
	}
	is.Equal(events(t, []byte(again.String())), sent[cut+1:])

	// Another tenant cannot follow it, on either instance.
	other := watcher.do(req{method: "GET", path: "/conversations/" + id + "/events", token: tokenB})
	is.Equal(other.status, http.StatusNotFound)
}

func TestHeartbeat(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), func(_ *agent.Config, o *agenthttp.Options) { o.Heartbeat = 10 * time.Millisecond })
	id := e.create(tokenA, "hello").ConversationID
	r, _ := http.NewRequest("GET", e.srv.URL+"/conversations/"+id+"/events", nil)
	r.Header.Set("Authorization", "Bearer "+tokenA)
	resp, err := e.srv.Client().Do(r)
	is.NoErr(err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for n := 0; n < 3; {
		line, err := br.ReadString('\n')
		is.NoErr(err)
		if line == ": heartbeat\n" {
			n++
		}
	}
}

func TestCORS(t *testing.T) {
	is := is.New(t)
	closed := newEnv(t, memory.New())
	preflight := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
	resp := closed.do(req{method: "OPTIONS", path: "/conversations", header: preflight})
	is.Equal(resp.header.Get("Access-Control-Allow-Origin"), "") // off unless configured
	resp = closed.do(req{method: "GET", path: "/agents", token: tokenA, header: map[string]string{"Origin": "https://app.example"}})
	is.Equal(resp.status, http.StatusOK)
	is.Equal(resp.header.Get("Access-Control-Allow-Origin"), "")

	open := newEnv(t, memory.New(), func(_ *agent.Config, o *agenthttp.Options) { o.AllowedOrigins = []string{"https://app.example"} })
	resp = open.do(req{method: "OPTIONS", path: "/conversations", header: preflight})
	is.Equal(resp.status, http.StatusNoContent)
	is.Equal(resp.header.Get("Access-Control-Allow-Origin"), "https://app.example")
	is.True(strings.Contains(resp.header.Get("Access-Control-Allow-Headers"), "Content-Type"))
	resp = open.do(req{method: "OPTIONS", path: "/conversations", header: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}})
	is.Equal(resp.header.Get("Access-Control-Allow-Origin"), "")

	_, err := agenthttp.New([]*agent.Host{open.host}, agenthttp.Options{Store: memory.New(), Authenticate: authenticate, AllowedOrigins: []string{"*"}})
	is.True(err != nil) // origins are explicit
}

func TestAuthentication(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())
	_, err := agenthttp.New([]*agent.Host{e.host}, agenthttp.Options{Store: e.store})
	is.True(err != nil)                                                                // no default trusts anything
	is.True(strings.Contains(err.Error(), "Options.DevelopmentTenantHeader takes it")) // the error names the way to try it out

	var logs bytes.Buffer
	h, err := agenthttp.New([]*agent.Host{e.host}, agenthttp.Options{Store: e.store, DevelopmentTenantHeader: "X-Tenant",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	is.NoErr(err)
	is.True(strings.Contains(logs.String(), "level=WARN"))
	is.True(strings.Contains(logs.String(), "DEVELOPMENT AUTHENTICATION"))
	dev := &env{t: t, store: e.store, handler: h}
	dev.srv = newServer(t, h)
	resp := dev.do(req{method: "GET", path: "/conversations"})
	is.Equal(resp.status, http.StatusUnauthorized)
	is.True(strings.Contains(resp.problem(t).Detail, "takes the tenant from the X-Tenant request header")) // the body names the header
	var refused string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "authentication failed") {
			refused = line
		}
	}
	is.True(strings.Contains(refused, "header=X-Tenant")) // and so does the log
	resp = dev.do(req{method: "GET", path: "/conversations", header: map[string]string{"X-Tenant": tenantA}})
	is.Equal(resp.status, http.StatusOK)

	// An authentication error's text stays in the log.
	failing, err := agenthttp.New([]*agent.Host{e.host}, agenthttp.Options{Store: e.store,
		Authenticate: func(*http.Request) (agenthttp.Principal, error) {
			return agenthttp.Principal{}, errors.New("secret detail")
		},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	is.NoErr(err)
	f := &env{t: t, store: e.store, handler: failing, srv: newServer(t, failing)}
	resp = f.do(req{method: "GET", path: "/agents"})
	is.Equal(resp.status, http.StatusUnauthorized)
	is.True(!strings.Contains(string(resp.body), "secret"))
	// A principal without a tenant is refused.
	empty, _ := agenthttp.New([]*agent.Host{e.host}, agenthttp.Options{Store: e.store, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Authenticate: func(*http.Request) (agenthttp.Principal, error) { return agenthttp.Principal{User: "x"}, nil }})
	f = &env{t: t, store: e.store, handler: empty, srv: newServer(t, empty)}
	resp = f.do(req{method: "GET", path: "/conversations"})
	is.Equal(resp.status, http.StatusUnauthorized)
}

func TestRequestSpansAndLogs(t *testing.T) {
	is := is.New(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e := newEnv(t, memory.New(), func(c *agent.Config, o *agenthttp.Options) {
		c.Telemetry = telemetry.New(&telemetry.Options{TracerProvider: tp})
		o.TracerProvider = tp
	})
	e.create(tokenA, "hello")
	var request, run sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch {
		case s.Name() == "POST /conversations":
			request = s
		case strings.HasPrefix(s.Name(), "invoke_agent"):
			run = s
		}
	}
	is.True(request != nil)
	is.True(run != nil)
	is.Equal(run.Parent().SpanID(), request.SpanContext().SpanID()) // the run's span is the request's child
	is.Equal(run.SpanContext().TraceID(), request.SpanContext().TraceID())

	logs := e.logs.String()
	is.True(strings.Contains(logs, `msg="agenthttp: request" method=POST path=/conversations status=201`))
	is.True(strings.Contains(logs, "settings_id="+tenantA))
}
