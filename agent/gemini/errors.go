package gemini

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

// errUnexpectedEnd is the cause of a stream that ended before Gemini said why the model stopped.
var errUnexpectedEnd = errors.New("unexpected end of stream")

// wrapError turns the SDK's errors into [*chat.ProviderError]s, keeping the SDK's error reachable. A canceled
// or expired context is returned as the context's error. wait is the Retry-After the answer carried; begun says
// the stream had delivered a chunk, so that a failure is an answer cut short.
func wrapError(ctx context.Context, err error, ans answer, begun bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr APIError
	if errors.As(err, &apiErr) {
		pe := &chat.ProviderError{Provider: ProviderName, StatusCode: apiErr.Code, Code: apiErr.Status, Message: apiErr.Message,
			RetryAfter: ans.wait, Err: err}
		if ans.status >= 400 {
			pe.StatusCode = ans.status // the HTTP status, which the body's code may not repeat
		}
		if pe.RetryAfter == 0 {
			pe.RetryAfter = retryInfo(apiErr.Details)
		}
		if pe.Message == "" {
			pe.Message = apiErr.Status
		}
		if begun && pe.StatusCode < 400 {
			pe.Cut = true // an error event inside a stream that had begun
		}
		if pe.StatusCode == 0 {
			pe.Cut = true // an error event with no code: the answer broke off
		}
		return pe
	}
	// Anything else broke the exchange itself: no connection, a stream cut halfway, an event that is not JSON.
	return &chat.ProviderError{Provider: ProviderName, Message: err.Error(), Cut: begun || isStreamChunkError(err), Err: err}
}

// isStreamChunkError reports the SDK's error for a stream event it could not read.
func isStreamChunkError(err error) bool {
	return strings.Contains(err.Error(), "iterateResponseStream")
}

// retryInfo reads the wait of a google.rpc.RetryInfo among an error's details, such as {"retryDelay": "7s"}.
func retryInfo(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if w, err := time.ParseDuration(s); err == nil && w > 0 {
				return w
			}
		}
	}
	return 0
}

// retryAfter holds the status and the Retry-After of one call's refused request, which the transport reads off
// the answer: the SDK's error keeps neither the headers nor, always, the HTTP status.
type retryAfter struct {
	mu  sync.Mutex
	ans answer
}

// answer is what the transport saw of a refused request.
type answer struct {
	status int
	wait   time.Duration
}

func (r *retryAfter) get() answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ans
}

type retryAfterKey struct{}

func withRetryAfter(ctx context.Context, r *retryAfter) context.Context {
	return context.WithValue(ctx, retryAfterKey{}, r)
}

// retryAfterTransport keeps the status and Retry-After of an answer with an error status in the call's
// retryAfter.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	if r, ok := req.Context().Value(retryAfterKey{}).(*retryAfter); ok {
		r.mu.Lock()
		r.ans = answer{status: resp.StatusCode, wait: providerkit.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
		r.mu.Unlock()
	}
	return resp, err
}
