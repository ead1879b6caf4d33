package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"os"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// ProviderName is the name the provider reports in errors, reasoning parts and telemetry, and the name
// [Register] uses.
const ProviderName = "gemini"

// APIError is the SDK's error type, reachable with errors.As from the [*chat.ProviderError]s this package
// returns.
type APIError = genai.APIError

// Client is a [chat.Client] over the Gemini API's generateContent and streamGenerateContent, or Vertex AI's,
// through the official google.golang.org/genai SDK. It is safe for concurrent use.
type Client struct {
	sdk   *genai.Client
	model string
}

// New returns a client configured by cfg, as genai.NewClient takes it: nil reads the environment
// (GEMINI_API_KEY or GOOGLE_API_KEY for the Gemini API; GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT and
// GOOGLE_CLOUD_LOCATION for Vertex AI); Backend, Project, Location and Credentials choose Vertex AI in code;
// HTTPOptions.BaseURL points the client at another server.
//
// The SDK's own retries (HTTPOptions.RetryOptions) are left off, and so is its automatic continuation of cut
// streams: the host's retry decorator ([chat.Retry]) is the one loop that tries again, so retries are never
// stacked. cfg is copied, not kept.
func New(ctx context.Context, cfg *genai.ClientConfig) (*Client, error) {
	var c genai.ClientConfig
	if cfg != nil {
		c = *cfg
	}
	c.HTTPOptions.RetryOptions = nil
	// The client's transport keeps the status and Retry-After of refused requests: the SDK's error does not
	// carry the answer's headers. A caller's HTTP client is copied, not changed; without one, the SDK makes its
	// own (with Vertex AI's credentials), and its transport is wrapped before any request.
	if c.HTTPClient != nil {
		hc := *c.HTTPClient
		hc.Transport = wrapTransport(hc.Transport)
		c.HTTPClient = &hc
	}
	sdk, err := genai.NewClient(ctx, &c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProviderName, err)
	}
	if cfg == nil || cfg.HTTPClient == nil {
		if hc := sdk.ClientConfig().HTTPClient; hc != nil {
			hc.Transport = wrapTransport(hc.Transport)
		}
	}
	return &Client{sdk: sdk}, nil
}

func wrapTransport(t http.RoundTripper) http.RoundTripper {
	if t == nil {
		t = http.DefaultTransport
	}
	return retryAfterTransport{t}
}

// NewWithSDK returns a client over an SDK client configured by the caller, retries included: leave
// HTTPOptions.RetryOptions nil when the host retries.
func NewWithSDK(c *genai.Client) *Client { return &Client{sdk: c} }

// WithModel returns a copy of c that asks for model when the options name none.
func (c *Client) WithModel(model string) *Client {
	d := *c
	d.model = model
	return &d
}

// Factory returns a [chat.ProviderFactory] making one client per model, all sharing one SDK client made from
// cfg (see [New]).
func Factory(ctx context.Context, cfg *genai.ClientConfig) (chat.ProviderFactory, error) {
	base, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return func(model string) (chat.Client, error) { return base.WithModel(model), nil }, nil
}

// Register adds the gemini provider to p under [ProviderName], with its schema check: a host built on p refuses
// a tool whose schema Gemini cannot take (see [schemaprofile.Gemini]).
func Register(ctx context.Context, p *chat.Providers, cfg *genai.ClientConfig) error {
	f, err := Factory(ctx, cfg)
	if err != nil {
		return err
	}
	p.Register(ProviderName, f)
	p.SetSchemaCheck(ProviderName, checkSchema)
	return nil
}

// Available reports whether the environment names an API key of the Gemini API, so that a program can fall
// back to an offline model when it does not.
func Available() bool { return os.Getenv("GEMINI_API_KEY") != "" || os.Getenv("GOOGLE_API_KEY") != "" }

// CheckSchema reports a tool schema Gemini cannot take, as a [*schemaprofile.Error] (see [chat.SchemaChecker]).
func (c *Client) CheckSchema(tool string, schema json.RawMessage) error {
	return checkSchema(tool, schema)
}

func checkSchema(tool string, schema json.RawMessage) error {
	_, err := schemaprofile.Gemini.Adapt(tool, schema)
	return err
}

// Respond sends one generateContent request and returns the whole response.
func (c *Client) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	req, err := c.request(msgs, opts)
	if err != nil {
		return nil, err
	}
	var ra retryAfter
	r, err := c.sdk.Models.GenerateContent(withRetryAfter(ctx, &ra), req.model, req.contents, req.config)
	if err != nil {
		return nil, wrapError(ctx, err, ra.get(), false)
	}
	var a assembler
	us := a.add(r)
	resp := &chat.Response{ID: a.id, Model: a.modelName(req.model), FinishReason: a.finishReason()}
	msg := chat.Message{Role: chat.RoleAssistant}
	for _, u := range us {
		msg.Parts = append(msg.Parts, u.Parts...)
	}
	resp.Messages = []chat.Message{joinText(msg)}
	resp.Usage = a.usage
	return resp, nil
}

// Stream sends one streamGenerateContent request (alt=sse) and yields its updates.
func (c *Client) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		req, err := c.request(msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		var ra retryAfter
		var a assembler
		chunks := 0
		for r, err := range c.sdk.Models.GenerateContentStream(withRetryAfter(ctx, &ra), req.model, req.contents, req.config) {
			if err != nil {
				yield(chat.Update{}, wrapError(ctx, err, ra.get(), chunks > 0))
				return
			}
			chunks++
			for _, u := range a.add(r) {
				u.Model = a.modelName(req.model)
				if !yield(u, nil) {
					return
				}
			}
		}
		if err := ctx.Err(); err != nil {
			yield(chat.Update{}, err)
			return
		}
		if a.finish == "" {
			yield(chat.Update{}, &chat.ProviderError{Provider: ProviderName, Message: "the stream ended before the model finished",
				Cut: true, Err: errUnexpectedEnd})
			return
		}
		last := chat.Update{ResponseID: a.id, Model: a.modelName(req.model), Role: chat.RoleAssistant, FinishReason: a.finishReason()}
		if a.hasUsage {
			last.Parts = []chat.Part{chat.UsagePart{Usage: a.usage}}
		}
		yield(last, nil)
	}
}

// joinText joins consecutive text parts, as [chat.Collect] does for a stream.
func joinText(m chat.Message) chat.Message {
	out := m.Parts[:0:0]
	for _, p := range m.Parts {
		if t, ok := p.(chat.Text); ok && len(out) > 0 {
			if last, ok := out[len(out)-1].(chat.Text); ok {
				out[len(out)-1] = chat.Text{Text: last.Text + t.Text}
				continue
			}
		}
		if r, ok := p.(chat.Reasoning); ok && len(out) > 0 {
			if last, ok := out[len(out)-1].(chat.Reasoning); ok {
				if j, ok := chat.JoinReasoning(last, r); ok {
					out[len(out)-1] = j
					continue
				}
			}
		}
		out = append(out, p)
	}
	m.Parts = out
	return m
}
