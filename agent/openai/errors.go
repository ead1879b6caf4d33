package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

// wrapError turns the SDK's errors into [*chat.ProviderError]s, keeping the SDK's error reachable. A canceled
// or expired context is returned as the context's error, which is what callers test for.
func wrapError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		pe := &chat.ProviderError{
			Provider:   ProviderName,
			StatusCode: apiErr.StatusCode,
			Code:       apiErr.Code,
			Message:    redact(apiErr.Message, apiErr.Request),
			Err:        apiErr,
		}
		if apiErr.Response != nil {
			pe.RetryAfter = providerkit.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return pe
	}
	// Anything else broke the exchange itself: no connection, a connection cut halfway, a body that is not JSON,
	// an error event inside a stream.
	return &chat.ProviderError{Provider: ProviderName, Message: err.Error(), Err: err}
}

// wrapStreamError wraps an error that ended a stream. An error event inside the stream, or a transport failure
// after the stream had begun, is an answer that broke off ([chat.ErrStreamCut]).
func wrapStreamError(ctx context.Context, err error, begun bool) error {
	werr := wrapError(ctx, err)
	var pe *chat.ProviderError
	if errors.As(werr, &pe) && pe.StatusCode == 0 {
		var se *ssestream.StreamError
		if begun || errors.As(err, &se) {
			pe.Cut = true
		}
	}
	return werr
}

// redact removes the request's bearer token from a message the server wrote. Servers may echo the key they
// were given (OpenAI masks it; not every compatible server does).
func redact(msg string, req *http.Request) string {
	if req == nil {
		return msg
	}
	key, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok || len(key) < 4 {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}
