package chat

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how [Retry] tries a failed model call again. The zero value is the default policy.
type RetryPolicy struct {
	// MaxAttempts bounds the tries of one call, the first included: 0 means 3, and 1 turns retrying off.
	MaxAttempts int
	// BaseDelay is the backoff before the second try; each later try doubles it. 0 means 500ms.
	BaseDelay time.Duration
	// MaxDelay caps one wait, a provider's Retry-After included: a provider asking for a longer wait ends the
	// retries at once (a fallback can take over). 0 means 30s.
	MaxDelay time.Duration
	// Retryable decides which errors are tried again; nil means [IsTemporary]: rate limits, overloads, server
	// errors, timeouts and answers that broke off.
	Retryable func(error) bool
}

// DefaultRetryPolicy is the policy a zero RetryPolicy stands for.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryPolicy.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	if p.Retryable == nil {
		p.Retryable = IsTemporary
	}
	return p
}

// Retry returns a middleware that tries a failed call again, as p says (nil: the default policy).
//
// Between tries it waits what the provider asked for ([ProviderError.RetryAfter]) or else an exponential backoff
// with full jitter (a random wait up to BaseDelay·2ⁿ, so that many clients refused at once do not come back at
// once). It never sleeps past the context's deadline: when the wait would end after it, the last error is
// returned at once. A stream is tried again only while nothing of it has reached the caller; once an update has
// been yielded, an error ends the stream as it came.
//
// Providers' SDKs retry on their own by default; the providers of this module turn that off, so that one policy
// governs and retries are never stacked.
func Retry(p *RetryPolicy) Middleware {
	policy := DefaultRetryPolicy
	if p != nil {
		policy = *p
	}
	policy = policy.withDefaults()
	return func(next Client) Client {
		if policy.MaxAttempts == 1 {
			return next
		}
		return &retryClient{next: next, p: policy}
	}
}

type retryClient struct {
	next Client
	p    RetryPolicy
}

func (c *retryClient) Respond(ctx context.Context, msgs []Message, opts *Options) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := c.next.Respond(ctx, msgs, opts)
		if err == nil || !c.again(ctx, attempt, err) {
			return resp, stopped(ctx, err)
		}
	}
}

func (c *retryClient) Stream(ctx context.Context, msgs []Message, opts *Options) iter.Seq2[Update, error] {
	return func(yield func(Update, error) bool) {
		for attempt := 1; ; attempt++ {
			begun := false
			var failed error
			for u, err := range c.next.Stream(ctx, msgs, opts) {
				if err != nil && !begun {
					failed = err
					break
				}
				begun = true
				if !yield(u, err) || err != nil {
					return
				}
			}
			if failed == nil {
				return
			}
			if !c.again(ctx, attempt, failed) {
				yield(Update{}, stopped(ctx, failed))
				return
			}
		}
	}
}

// again reports whether a call that failed with err on the given attempt is to be tried again, after waiting
// for it. It returns false, without waiting, when the attempts are spent, the error is not retryable, or the
// wait would pass the context's deadline or the policy's MaxDelay.
func (c *retryClient) again(ctx context.Context, attempt int, err error) bool {
	if attempt >= c.p.MaxAttempts || ctx.Err() != nil || !c.p.Retryable(err) {
		return false
	}
	wait := RetryAfterOf(err)
	if wait > c.p.MaxDelay {
		return false
	}
	if wait <= 0 {
		wait = backoff(c.p.BaseDelay, c.p.MaxDelay, attempt)
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= wait {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopped returns the error a call ends with: err, or, when the context ended while the call waited to try
// again, the context's error wrapping err too, so that errors.Is finds both.
func stopped(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: the last try failed: %w", cerr, err)
	}
	return err
}

// backoff returns a random wait in [0, min(maxDelay, base·2^(attempt-1))]: exponential backoff with full jitter.
func backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	ceiling := base
	for i := 1; i < attempt && ceiling < maxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, maxDelay)
	return rand.N(ceiling + 1)
}
