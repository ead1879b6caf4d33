package chat

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The kinds of provider failures callers branch on, matched by [errors.Is] against a [*ProviderError] (and any
// error wrapping one). A failure may be of several kinds: an overload is a server error too.
var (
	// ErrRateLimited is a refusal for too many requests or tokens (HTTP 429); RetryAfter says how long to wait.
	ErrRateLimited = errors.New("chat: rate limited")
	// ErrOverloaded is a provider too busy to answer (Anthropic's 529, Gemini's 503).
	ErrOverloaded = errors.New("chat: provider overloaded")
	// ErrServer is a provider's own failure (HTTP 5xx, an overload included).
	ErrServer = errors.New("chat: provider server error")
	// ErrStreamCut is an answer that broke off: the connection failed, or the stream ended or reported an error
	// before the provider said the answer was complete.
	ErrStreamCut = errors.New("chat: stream cut before the answer ended")
	// ErrInvalidRequest is a request the provider's API would refuse, refused by the provider client before it
	// is sent: a file the API cannot take, an option out of the API's range, an Extra field that collides with
	// one the library sets. The error's message says why and what to set.
	ErrInvalidRequest = errors.New("chat: invalid request")
)

// An ExtraConflictError is an [Options.Extra] field that would replace a field the provider set from the
// options. It wraps [ErrInvalidRequest].
type ExtraConflictError struct {
	// Provider names the provider.
	Provider string
	// Field is the request field's path, such as "generationConfig.temperature".
	Field string
}

func (e *ExtraConflictError) Error() string {
	return fmt.Sprintf("%s: Options.Extra sets %q, which the request already sets from the options: set it through the options, or leave it out of Extra", e.Provider, e.Field)
}

// Unwrap returns [ErrInvalidRequest].
func (e *ExtraConflictError) Unwrap() error { return ErrInvalidRequest }

// A ProviderError is a model provider's refusal of a request: an HTTP status, the provider's own message and,
// for rate limits, how long to wait. Providers return it (wrapping their SDK's error, which stays reachable with
// errors.As) so that callers can branch on it without knowing the provider.
//
// Its message never carries credentials: providers strip them before they build it.
type ProviderError struct {
	// Provider names the provider, such as "openai".
	Provider string
	// StatusCode is the HTTP status, or 0 when the failure was not an HTTP answer (a stream cut halfway).
	StatusCode int
	// Code is the provider's error code, such as "rate_limit_exceeded", if it sent one.
	Code string
	// Message is the provider's explanation.
	Message string
	// RetryAfter is how long the provider asked the caller to wait (from Retry-After), or 0.
	RetryAfter time.Duration
	// Cut reports an answer that broke off after it had begun (see [ErrStreamCut]). StatusCode is then 0.
	Cut bool
	// Err is the provider SDK's error, if any.
	Err error
}

func (e *ProviderError) Error() string {
	s := e.Provider
	if s == "" {
		s = "provider"
	}
	if e.StatusCode != 0 {
		s = fmt.Sprintf("%s: status %d", s, e.StatusCode)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Cut {
		s += " (the answer broke off)"
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Unwrap returns the provider SDK's error.
func (e *ProviderError) Unwrap() error { return e.Err }

// Is matches the kinds of failure: [ErrRateLimited], [ErrOverloaded], [ErrServer] and [ErrStreamCut].
func (e *ProviderError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		return e.StatusCode == 429
	case ErrOverloaded:
		return e.StatusCode == 529 || e.StatusCode == 503
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode < 600
	case ErrStreamCut:
		return e.Cut
	}
	return false
}

// Temporary reports whether the same request may succeed later: rate limits, timeouts, server errors and answers
// that broke off.
func (e *ProviderError) Temporary() bool {
	return e.StatusCode == 408 || e.StatusCode == 409 || e.StatusCode == 429 || e.StatusCode >= 500 || e.Cut
}

// IsTemporary reports whether err is, or wraps, a [*ProviderError] whose request may succeed later (see
// [ProviderError.Temporary]). A canceled or expired context is never temporary: the caller gave up.
func IsTemporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *ProviderError
	return errors.As(err, &pe) && pe.Temporary()
}

// RetryAfterOf returns the wait the provider asked for in err's [*ProviderError], or 0.
func RetryAfterOf(err error) time.Duration {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.RetryAfter
	}
	return 0
}
