package chat

import (
	"context"
	"fmt"
	"iter"
	"strings"
)

// A Route names a provider registered in a [Providers] and one of its models. In a stored settings document it
// is {"provider": "anthropic", "model": "claude-sonnet-4-5"}.
type Route struct {
	// Provider is the registered provider's name; empty means the provider of the route before it.
	Provider string `json:"provider,omitempty"`
	// Model is the model's name at the provider.
	Model string `json:"model"`
}

func (r Route) String() string { return r.Provider + "/" + r.Model }

// A Candidate is one client of a fallback list and the route it answers for.
type Candidate struct {
	Route  Route
	Client Client
}

// Fallback returns a client that sends each call to the first candidate and, when it fails with an error for
// which moveOn returns true (nil: [IsTemporary]), to the next, and so on: the options go to each with Model set
// to the candidate's model. Wrap each candidate in [Retry] for it to be tried again before the next is asked.
//
// A stream moves on only while nothing of it has reached the caller; once an update has been yielded, its error
// ends the stream as it came. When every candidate fails, the error is a [*FallbackError] holding each one's.
// A canceled context, or an error moveOn refuses, is returned as it came, without asking the next.
func Fallback(candidates []Candidate, moveOn func(error) bool) Client {
	if moveOn == nil {
		moveOn = IsTemporary
	}
	if len(candidates) == 1 {
		return candidates[0].Client
	}
	return &fallbackClient{candidates: append([]Candidate(nil), candidates...), moveOn: moveOn}
}

type fallbackClient struct {
	candidates []Candidate
	moveOn     func(error) bool
}

// options returns the options for candidate i: opts itself when the model is already its own.
func (c *fallbackClient) options(i int, opts *Options) *Options {
	m := c.candidates[i].Route.Model
	if m == "" || (opts != nil && opts.Model == m) {
		return opts
	}
	o := opts.Clone()
	o.Model = m
	return o
}

func (c *fallbackClient) Respond(ctx context.Context, msgs []Message, opts *Options) (*Response, error) {
	var fe FallbackError
	for i, cand := range c.candidates {
		resp, err := cand.Client.Respond(ctx, msgs, c.options(i, opts))
		if err == nil {
			return resp, nil
		}
		fe.add(cand.Route, err)
		if !c.moveOn(err) || ctx.Err() != nil {
			return resp, fe.result()
		}
	}
	return nil, &fe
}

func (c *fallbackClient) Stream(ctx context.Context, msgs []Message, opts *Options) iter.Seq2[Update, error] {
	return func(yield func(Update, error) bool) {
		var fe FallbackError
		for i, cand := range c.candidates {
			begun := false
			var failed error
			for u, err := range cand.Client.Stream(ctx, msgs, c.options(i, opts)) {
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
			fe.add(cand.Route, failed)
			if !c.moveOn(failed) || ctx.Err() != nil {
				yield(Update{}, fe.result())
				return
			}
		}
		yield(Update{}, &fe)
	}
}

// FallbackError reports a call that every candidate of a [Fallback] failed, or that stopped at an error not
// worth moving on for. errors.Is and errors.As see each candidate's error.
type FallbackError struct {
	// Routes are the candidates tried, in order; Errs their errors.
	Routes []Route
	Errs   []error
}

func (e *FallbackError) add(r Route, err error) {
	e.Routes = append(e.Routes, r)
	e.Errs = append(e.Errs, err)
}

// result returns the error of a call that stopped: the only error as it came when a single candidate was tried,
// the whole list otherwise.
func (e *FallbackError) result() error {
	if len(e.Errs) == 1 {
		return e.Errs[0]
	}
	return e
}

func (e *FallbackError) Error() string {
	parts := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		parts[i] = fmt.Sprintf("%s: %v", e.Routes[i], err)
	}
	return "every model failed: " + strings.Join(parts, "; ")
}

// Unwrap returns each candidate's error.
func (e *FallbackError) Unwrap() []error { return e.Errs }
