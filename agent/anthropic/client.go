package anthropic

import (
	"context"
	"encoding/json"
	"iter"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// ProviderName is the name the provider reports in errors, reasoning parts and telemetry, and the name
// [Register] uses.
const ProviderName = "anthropic"

// DefaultMaxTokens caps an answer when neither the options nor [Client.WithMaxTokens] do: the Messages API
// requires a cap.
const DefaultMaxTokens = 4096

// Error is the SDK's error type, reachable with errors.As from the [*chat.ProviderError]s this package returns.
type Error = sdk.Error

// Client is a [chat.Client] over the Messages API. It is safe for concurrent use.
type Client struct {
	sdk       sdk.Client
	model     string
	maxTokens int64
	thinking  int64
	// strictTools sends the tools schemaprofile.AnthropicStrict can describe with strict: true.
	strictTools bool
}

// New returns a client configured by the SDK's request options, after the environment (ANTHROPIC_API_KEY,
// ANTHROPIC_BASE_URL and the SDK's other variables), with the SDK's retries off unless opts turn them on again.
func New(opts ...option.RequestOption) *Client {
	return &Client{sdk: sdk.NewClient(providerkit.RetriesOff(option.WithMaxRetries(0), opts)...)}
}

// NewWithSDK returns a client over an SDK client configured by the caller.
func NewWithSDK(c sdk.Client) *Client { return &Client{sdk: c} }

// WithModel returns a copy of c that asks for model when the options name none.
func (c *Client) WithModel(model string) *Client {
	d := *c
	d.model = model
	return &d
}

// WithMaxTokens returns a copy of c that caps answers at n tokens when the options set no cap (0 restores
// [DefaultMaxTokens]).
func (c *Client) WithMaxTokens(n int64) *Client {
	d := *c
	d.maxTokens = n
	return &d
}

// WithThinking returns a copy of c that turns extended thinking on with a budget of tokens (at least 1024;
// 0 turns it off). The cap on the answer grows to leave room for the budget. It is the default a request's
// chat.Options.Reasoning overrides.
func (c *Client) WithThinking(budget int64) *Client {
	d := *c
	d.thinking = budget
	return &d
}

// WithStrictTools returns a copy of c that sends in strict mode each tool whose schema
// [schemaprofile.AnthropicStrict] can describe: `strict: true`, the schema in that profile, so that Claude's
// arguments are decoded against the schema and always match it (an answer tool's arguments, say). A tool the
// profile cannot describe (a map, a recursive type) is sent as without it: strictness is per tool. Off by
// default.
func (c *Client) WithStrictTools(strict bool) *Client {
	d := *c
	d.strictTools = strict
	return &d
}

// Factory returns a [chat.ProviderFactory] making one client per model, all sharing the options.
func Factory(opts ...option.RequestOption) chat.ProviderFactory {
	base := New(opts...)
	return func(model string) (chat.Client, error) { return base.WithModel(model), nil }
}

// Register adds the anthropic provider to p under [ProviderName], with its schema check: a host built on p
// refuses a tool whose schema Claude cannot take (see [schemaprofile.Anthropic]).
func Register(p *chat.Providers, opts ...option.RequestOption) {
	p.Register(ProviderName, Factory(opts...))
	p.SetSchemaCheck(ProviderName, checkSchema)
}

// CheckSchema reports a tool schema Claude cannot take, as a [*schemaprofile.Error] (see [chat.SchemaChecker]):
// a host built on the client refuses the tool when it is built.
func (c *Client) CheckSchema(tool string, schema json.RawMessage) error {
	return checkSchema(tool, schema)
}

func checkSchema(tool string, schema json.RawMessage) error {
	_, err := schemaprofile.Anthropic.Adapt(tool, schema)
	return err
}

// Available reports whether the environment names an API key, so that a program can fall back to another
// model when it does not.
func Available() bool { return os.Getenv("ANTHROPIC_API_KEY") != "" }

// Respond sends one request and returns the whole response.
func (c *Client) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	params, err := c.params(msgs, opts)
	if err != nil {
		return nil, err
	}
	m, err := c.sdk.Messages.New(ctx, params)
	if err != nil {
		return nil, wrapError(ctx, err)
	}
	return response(m), nil
}

// Stream sends one streamed request and yields its updates.
func (c *Client) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		params, err := c.params(msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		stream := c.sdk.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		var a assembler
		begun := false
		for stream.Next() {
			begun = true
			for _, u := range a.add(stream.Current()) {
				if !yield(u, nil) {
					return
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(chat.Update{}, wrapStreamError(ctx, err, begun))
			return
		}
		if err := a.finish(ctx); err != nil {
			yield(chat.Update{}, err)
		}
	}
}
