package openai

import (
	"context"
	"iter"
	"os"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

// ProviderName is the name the provider reports in errors and telemetry, and the name [Register] uses.
const ProviderName = "openai"

// Error is the SDK's error type, reachable with errors.As from the [*chat.ProviderError]s this package returns.
type Error = sdk.Error

// Client is a [chat.Client] over the Chat Completions API. It is safe for concurrent use.
type Client struct {
	sdk   sdk.Client
	model string
	// strict asks the API to hold tool arguments to their schemas exactly.
	strict bool
	// noToolImages sends a line in place of each image a tool returned (WithToolImages).
	noToolImages bool
}

// New returns a client configured by the SDK's request options, after the environment: OPENAI_API_KEY,
// OPENAI_BASE_URL and the SDK's other variables.
//
// The SDK's own retries are off: a failed request is returned at once as a [*chat.ProviderError], and the retry
// decorator of the host ([chat.Retry]) decides whether and when to try again, so that retries are never stacked.
// An option.WithMaxRetries among opts turns the SDK's retries back on.
func New(opts ...option.RequestOption) *Client {
	return &Client{sdk: sdk.NewClient(providerkit.RetriesOff(option.WithMaxRetries(0), opts)...)}
}

// NewWithSDK returns a client over an SDK client configured by the caller, retries included: configure it with
// option.WithMaxRetries(0) when the host retries (see [New]).
func NewWithSDK(c sdk.Client) *Client { return &Client{sdk: c} }

// WithModel returns a copy of c that asks for model when the options name none.
func (c *Client) WithModel(model string) *Client {
	d := *c
	d.model = model
	return &d
}

// WithStrictTools returns a copy of c that sends tools in strict mode, so that the API holds the model's arguments
// to the schema exactly. Each tool's schema is brought into strict mode's subset by [schemaprofile.OpenAIStrict]
// (optional properties become nullable, and the nulls the model sends for them are removed from its arguments
// before they reach the tool); a tool whose schema strict mode cannot describe, such as one taking a map, is
// sent without strict mode.
func (c *Client) WithStrictTools(strict bool) *Client {
	d := *c
	d.strict = strict
	return &d
}

// WithToolImages returns a copy of c that sends the images tools return (the default: in a user message after the
// tool messages), or, given false, a line in the tool message in place of each, such as "[image image/png, 5120
// bytes, not shown: this model is given no images]": for a model, or a compatible server, that takes no images
// and would refuse the request.
func (c *Client) WithToolImages(on bool) *Client {
	d := *c
	d.noToolImages = !on
	return &d
}

// Factory returns a [chat.ProviderFactory] making one client per model, all sharing the options.
func Factory(opts ...option.RequestOption) chat.ProviderFactory {
	base := New(opts...)
	return func(model string) (chat.Client, error) { return base.WithModel(model), nil }
}

// Register adds the openai provider to p under [ProviderName].
func Register(p *chat.Providers, opts ...option.RequestOption) {
	p.Register(ProviderName, Factory(opts...))
}

// Available reports whether the environment names an API key, so that a program can fall back to an offline
// model when it does not.
func Available() bool { return os.Getenv("OPENAI_API_KEY") != "" }

// Respond sends one request and returns the whole response.
func (c *Client) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	params, r, err := c.params(msgs, opts)
	if err != nil {
		return nil, err
	}
	cc, err := c.sdk.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, wrapError(ctx, err)
	}
	return response(cc, r), nil
}

// Stream sends one streamed request (with usage requested) and yields its updates.
func (c *Client) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		params, r, err := c.params(msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		params.StreamOptions.IncludeUsage = sdk.Bool(true)
		stream := c.sdk.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		a := assembler{restore: r}
		for stream.Next() {
			a.chunks++
			for _, u := range a.add(stream.Current()) {
				if !yield(u, nil) {
					return
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(chat.Update{}, wrapStreamError(ctx, err, a.chunks > 0))
			return
		}
		last, err := a.finish(ctx)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		if last != nil {
			yield(*last, nil)
		}
	}
}
