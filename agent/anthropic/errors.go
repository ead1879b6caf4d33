package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

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
			Code:       string(apiErr.Type()),
			Message:    redact(apiErr.Message, apiErr.Request),
			Err:        apiErr,
		}
		if pe.StatusCode < 400 {
			// An error event inside a stream that had begun with status 200: its type says what the status
			// would have been.
			pe.StatusCode = streamErrorStatus[pe.Code]
		}
		if apiErr.Response != nil {
			pe.RetryAfter = providerkit.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return pe
	}
	// Anything else broke the exchange itself: no connection, a connection cut halfway, an event that is not JSON.
	return &chat.ProviderError{Provider: ProviderName, Message: err.Error(), Err: err}
}

// streamErrorStatus is the HTTP status the API answers each error type with, for errors reported inside a stream.
var streamErrorStatus = map[string]int{
	"invalid_request_error": 400,
	"rate_limit_error":      429,
	"api_error":             500,
	"timeout_error":         504,
	"overloaded_error":      529,
}

// wrapStreamError wraps an error that ended a stream. A failure after the stream had begun (an error event such
// as an overload, a cut connection, an event that is not JSON) is an answer that broke off ([chat.ErrStreamCut]).
func wrapStreamError(ctx context.Context, err error, begun bool) error {
	werr := wrapError(ctx, err)
	var pe *chat.ProviderError
	if begun && errors.As(werr, &pe) {
		pe.Cut = true
	}
	return werr
}

// redact removes the request's API key from a message the server wrote.
func redact(msg string, req *http.Request) string {
	if req == nil {
		return msg
	}
	for _, key := range []string{req.Header.Get("X-Api-Key"), strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")} {
		if len(key) >= 4 {
			msg = strings.ReplaceAll(msg, key, "[redacted]")
		}
	}
	return msg
}
