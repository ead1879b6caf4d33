package chat

import (
	"fmt"
	"time"
)

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
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Unwrap returns the provider SDK's error.
func (e *ProviderError) Unwrap() error { return e.Err }

// Temporary reports whether the same request may succeed later: rate limits, timeouts and server errors.
func (e *ProviderError) Temporary() bool {
	return e.StatusCode == 408 || e.StatusCode == 409 || e.StatusCode == 429 || e.StatusCode >= 500
}
