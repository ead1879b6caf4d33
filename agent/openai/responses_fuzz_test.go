package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
)

// FuzzResponsesStream serves arbitrary bytes as a Responses API event stream: the client never panics or hangs,
// a stream ends either with a finish reason or with an error, never with neither, and every error is a
// *chat.ProviderError.
func FuzzResponsesStream(f *testing.F) {
	for _, name := range []string{"stream", "parallel_calls", "reasoning", "usage", "malformed_stream", "truncated_stream"} {
		if data, err := os.ReadFile("testdata/responses/" + name + ".txtar"); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"arguments\":{}}}\n\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\"}\n\n"))
	f.Add([]byte("event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n"))
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body.Load().([]byte))
	}))
	f.Cleanup(srv.Close)
	c := openai.NewResponses(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey)).WithModel("m")
	f.Fuzz(func(t *testing.T, data []byte) {
		body.Store(data)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		finished := false
		var err error
		for u, uerr := range c.Stream(ctx, []chat.Message{chat.UserText("hi")}, nil) {
			if uerr != nil {
				err = uerr
				break
			}
			if u.FinishReason != "" {
				finished = true
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatal("the stream hung")
		}
		if !finished && err == nil {
			t.Fatalf("%q: the stream ended with neither a finish nor an error", data)
		}
		var pe *chat.ProviderError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v (%T) is not a *chat.ProviderError", err, err)
		}
	})
}
