package agenta2a_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/toolset"
)

// answering is a RoundTripper that answers the card for GET and body, as JSON or as a stream, for every call.
type answering struct {
	card   string
	body   string
	stream bool
}

func (a answering) RoundTrip(r *http.Request) (*http.Response, error) {
	body, ct := a.body, "application/json"
	if r.Method == http.MethodGet {
		body = a.card
	} else if a.stream {
		ct = "text/event-stream"
		// The answer's id is the request's, so that the fuzzed events get past the envelope check.
		var env struct{ ID json.RawMessage }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &env)
		body = strings.ReplaceAll(body, "ID", string(env.ID))
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// FuzzRemoteAnswers gives a Remote arbitrary answers of a remote agent, whole and streamed: the call ends, in
// bounded time, with an answer or an error, never a panic or a hang.
func FuzzRemoteAnswers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":ID,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"}}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":ID,"error":{"code":-32001,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"input-required","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"data","data":{"approvalRequest":{"requestId":"r","tool":"x","arguments":{"a":[1]}}}}]}},"final":true}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"metadata":{"usage":{"inputTokens":-1e300},"cost":{"amount":"x"}}}}`,
		`{}`, `null`, `[`,
	} {
		f.Add(s, false)
		f.Add("data: "+s+"\n\n", true)
	}
	const card = `{"name":"Fuzz","url":"http://fuzz.invalid/","protocolVersion":"0.3.0","capabilities":{"streaming":STREAM}}`
	f.Fuzz(func(t *testing.T, body string, stream bool) {
		c := strings.Replace(card, "STREAM", map[bool]string{true: "true", false: "false"}[stream], 1)
		remote, err := agenta2a.Dial(context.Background(), "http://fuzz.invalid/", &agenta2a.RemoteOptions{
			HTTPClient: &http.Client{Transport: answering{card: c, body: strings.ReplaceAll(body, "ID", `"x"`), stream: stream}},
			Poll:       time.Millisecond, IdleTimeout: time.Second, MaxResponseBytes: 1 << 16, Retries: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond) // a task that works on is polled until then
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = remote.Tools()[0].Call(ctx, &toolset.Call{ID: "1", Arguments: json.RawMessage(`{"message":"hi"}`)})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the call did not end: %q", body)
		}
	})
}
