package chat_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// call sends one request, whole or streamed, and returns the answer's text and the error.
func call(ctx context.Context, c chat.Client, streamed bool) (string, error) {
	msgs := []chat.Message{chat.UserText("hi")}
	if !streamed {
		resp, err := c.Respond(ctx, msgs, nil)
		if err != nil {
			return "", err
		}
		return resp.Messages[0].Text(), nil
	}
	resp, err := chat.Collect(c.Stream(ctx, msgs, nil))
	if len(resp.Messages) == 0 {
		return "", err
	}
	return resp.Messages[0].Text(), err
}

func TestRetryOverTheWire(t *testing.T) {
	serverError := openaitest.Error(500, "server_error", "", "The server had an error while processing your request.")
	overloaded := openaitest.Error(529, "overloaded_error", "", "Overloaded")
	ok := openaitest.Reply{Text: "fine now"}
	fast := &chat.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second}
	tests := []struct {
		name     string
		script   []openaitest.Reply
		policy   *chat.RetryPolicy
		timeout  time.Duration // 0: none
		streamed []bool        // the modes the case runs in
		text     string
		errIs    error
		requests int
		minWait  time.Duration // the least time the call must take: a wait the server asked for
		maxWait  time.Duration // the most: the call did not sleep past what it was given
	}{
		{"500 then an answer", []openaitest.Reply{serverError, ok}, fast, 0, both, "fine now", nil, 2, 0, 0},
		{"overloaded then an answer", []openaitest.Reply{overloaded, ok}, fast, 0, both, "fine now", nil, 2, 0, 0},
		{"429 waits its Retry-After", []openaitest.Reply{openaitest.RateLimited(time.Second), ok}, fast, 0, both, "fine now", nil, 2, time.Second, 0},
		{"attempts are bounded, never stacked", []openaitest.Reply{serverError}, fast, 0, both, "", chat.ErrServer, 3, 0, 0},
		{"MaxAttempts 1 turns it off", []openaitest.Reply{serverError}, &chat.RetryPolicy{MaxAttempts: 1}, 0, both, "", chat.ErrServer, 1, 0, 0},
		{"a refusal is not retried", []openaitest.Reply{openaitest.Error(400, "invalid_request_error", "", "bad"), ok}, fast, 0, both, "", nil, 1, 0, 0},
		{"Retry-After past the deadline returns at once", []openaitest.Reply{openaitest.RateLimited(5 * time.Second), ok}, fast,
			time.Second, both, "", chat.ErrRateLimited, 1, 0, 900 * time.Millisecond},
		{"Retry-After over MaxDelay returns at once", []openaitest.Reply{openaitest.RateLimited(5 * time.Second), ok},
			&chat.RetryPolicy{MaxDelay: time.Second}, 0, both, "", chat.ErrRateLimited, 1, 0, 900 * time.Millisecond},
		{"backoff past the deadline returns at once", []openaitest.Reply{serverError, ok}, &chat.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour},
			time.Second, both, "", chat.ErrServer, 1, 0, 900 * time.Millisecond},
		{"a stream cut before its first update is retried", []openaitest.Reply{{Text: "lost", CutAfter: 1}, ok}, fast, 0, streamed, "fine now", nil, 2, 0, 0},
		{"a stream cut after an update is not", []openaitest.Reply{{Text: "This breaks off after a few words.", TextDelta: 4, CutAfter: 3}, ok}, fast, 0,
			streamed, "This bre", chat.ErrStreamCut, 1, 0, 0},
		{"an error event before any text is retried", []openaitest.Reply{{Chunks: []string{`{"error":{"message":"The server had an error.","type":"server_error"}}`}}, ok},
			fast, 0, streamed, "fine now", nil, 2, 0, 0},
	}
	for _, tt := range tests {
		for _, streamed := range tt.streamed {
			t.Run(tt.name+map[bool]string{false: "/respond", true: "/stream"}[streamed], func(t *testing.T) {
				is := is.New(t)
				srv := openaitest.NewServer(tt.script...)
				defer srv.Close()
				// The SDK's own retries are off by default: the decorator is the only loop.
				c := chat.Chain(openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test")).WithModel("m"), chat.Retry(tt.policy))
				ctx := context.Background()
				if tt.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				start := time.Now()
				text, err := call(ctx, c, streamed)
				took := time.Since(start)
				switch {
				case tt.errIs != nil:
					is.True(errors.Is(err, tt.errIs))
				case tt.text == "":
					is.True(err != nil)
				default:
					is.NoErr(err)
				}
				is.Equal(text, tt.text)
				is.Equal(len(srv.Requests()), tt.requests)
				is.True(took >= tt.minWait)
				if tt.maxWait > 0 {
					is.True(took < tt.maxWait)
				}
			})
		}
	}
}

var (
	both     = []bool{false, true}
	streamed = []bool{true}
)

func TestRetryStopsWhenCanceled(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Error(503, "server_error", "", "unavailable"))
	defer srv.Close()
	c := chat.Retry(&chat.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour, MaxAttempts: 5})(
		openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test")).WithModel("m"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Respond(ctx, []chat.Message{chat.UserText("hi")}, nil)
	is.True(errors.Is(err, context.Canceled))   // the caller gave up...
	is.True(errors.Is(err, chat.ErrOverloaded)) // ...after this failure, not a hang
	is.True(!chat.IsTemporary(err))             // and no fallback moves on
	is.Equal(len(srv.Requests()), 1)
}

func TestProviderErrorKinds(t *testing.T) {
	tests := []struct {
		err                               *chat.ProviderError
		rateLimited, overloaded, srv, cut bool
		temporary                         bool
	}{
		{&chat.ProviderError{StatusCode: 429, RetryAfter: time.Second}, true, false, false, false, true},
		{&chat.ProviderError{StatusCode: 529}, false, true, true, false, true},
		{&chat.ProviderError{StatusCode: 503}, false, true, true, false, true},
		{&chat.ProviderError{StatusCode: 500}, false, false, true, false, true},
		{&chat.ProviderError{StatusCode: 400}, false, false, false, false, false},
		{&chat.ProviderError{Cut: true}, false, false, false, true, true},
		{&chat.ProviderError{}, false, false, false, false, false},
	}
	for _, tt := range tests {
		is := is.New(t)
		err := error(&wrapped{tt.err})
		is.Equal(errors.Is(err, chat.ErrRateLimited), tt.rateLimited)
		is.Equal(errors.Is(err, chat.ErrOverloaded), tt.overloaded)
		is.Equal(errors.Is(err, chat.ErrServer), tt.srv)
		is.Equal(errors.Is(err, chat.ErrStreamCut), tt.cut)
		is.Equal(chat.IsTemporary(err), tt.temporary)
		is.Equal(chat.RetryAfterOf(err), tt.err.RetryAfter)
	}
	is := is.New(t)
	is.True(!chat.IsTemporary(context.DeadlineExceeded))
	is.True(!chat.IsTemporary(errors.Join(context.Canceled, &chat.ProviderError{StatusCode: 500})))
	is.True(!chat.IsTemporary(nil))
}

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "call: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
