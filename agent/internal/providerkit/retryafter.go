package providerkit

import (
	"net/http"
	"strconv"
	"time"
)

// RetryAfter reads how long a server asked the client to wait: Retry-After-Ms (milliseconds, which OpenAI
// sends), then Retry-After (seconds or an HTTP date). Zero means it did not say, or said something unusable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return ParseRetryAfter(h.Get("Retry-After"), now)
}

// ParseRetryAfter reads a Retry-After value: seconds, or an HTTP date after now.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
