package providertest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ansdk "github.com/anthropics/anthropic-sdk-go/v2"
	anoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	oasdk "github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/openai"
)

// The providers' overhead over their SDKs. Each benchmark makes the same request twice over a local server
// answering with the same recorded bytes: once through the provider's chat.Client, once with the SDK alone,
// reading the answer as a caller of the SDK would (the text of each delta, the usage). The difference is what the
// client adds: converting the conversation to the SDK's parameters and the SDK's answer (each event of a stream)
// to chat's updates. Run the two sides of a provider together so that they see the same load:
//
//	go test -run '^$' -bench 'Overhead' -benchmem -count 6 ./agent/providertest/

// benchText is the streamed answer: 60 deltas of 8 bytes.
var benchText = strings.Repeat("toner. ", 70)[:480]

const (
	benchQuestion     = "Is ticket 4711 open?"
	benchInstructions = "You help with support tickets."
)

// benchProvider is one provider's two sides.
type benchProvider struct {
	name   string
	render func(w io.Writer, n int, tu turn, stream bool)
	stream func(r *http.Request, body []byte) bool
	client func(url string) chat.Client
	// respond and streamSDK make the request with the SDK alone; streamSDK returns the deltas it read.
	respond   func(ctx context.Context, url string) func() error
	streamSDK func(ctx context.Context, url string) func() (int, error)
}

func benchProviders() []benchProvider {
	return []benchProvider{
		{name: "openai", render: renderChat, stream: streamFlag,
			client: func(url string) chat.Client {
				return openai.New(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test")).WithModel("gpt-test")
			},
			respond: func(ctx context.Context, url string) func() error {
				c := oasdk.NewClient(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
				return func() error {
					cc, err := c.Chat.Completions.New(ctx, oasdk.ChatCompletionNewParams{Model: "gpt-test",
						Messages: []oasdk.ChatCompletionMessageParamUnion{oasdk.SystemMessage(benchInstructions), oasdk.UserMessage(benchQuestion)}})
					if err == nil && cc.Choices[0].Message.Content == "" {
						err = fmt.Errorf("no text")
					}
					return err
				}
			},
			streamSDK: func(ctx context.Context, url string) func() (int, error) {
				c := oasdk.NewClient(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
				return func() (int, error) {
					s := c.Chat.Completions.NewStreaming(ctx, oasdk.ChatCompletionNewParams{Model: "gpt-test",
						Messages:      []oasdk.ChatCompletionMessageParamUnion{oasdk.SystemMessage(benchInstructions), oasdk.UserMessage(benchQuestion)},
						StreamOptions: oasdk.ChatCompletionStreamOptionsParam{IncludeUsage: oasdk.Bool(true)}})
					defer s.Close()
					n := 0
					for s.Next() {
						if ch := s.Current(); len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
							n++
						}
					}
					return n, s.Err()
				}
			}},
		{name: "openai-responses", render: renderResponses, stream: streamFlag,
			client: func(url string) chat.Client {
				return openai.NewResponses(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test")).WithModel("gpt-test")
			},
			respond: func(ctx context.Context, url string) func() error {
				c := oasdk.NewClient(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
				return func() error {
					r, err := c.Responses.New(ctx, responsesParams())
					if err == nil && r.OutputText() == "" {
						err = fmt.Errorf("no text")
					}
					return err
				}
			},
			streamSDK: func(ctx context.Context, url string) func() (int, error) {
				c := oasdk.NewClient(oaoption.WithBaseURL(url), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
				return func() (int, error) {
					s := c.Responses.NewStreaming(ctx, responsesParams())
					defer s.Close()
					n := 0
					for s.Next() {
						if ev := s.Current(); ev.Type == "response.output_text.delta" && ev.Delta != "" {
							n++
						}
					}
					return n, s.Err()
				}
			}},
		{name: "anthropic", render: renderMessages, stream: streamFlag,
			client: func(url string) chat.Client {
				return anthropic.New(anoption.WithoutEnvironmentDefaults(), anoption.WithBaseURL(url), anoption.WithAPIKey("sk-ant-test")).WithModel("claude-test")
			},
			respond: func(ctx context.Context, url string) func() error {
				c := ansdk.NewClient(anoption.WithoutEnvironmentDefaults(), anoption.WithBaseURL(url), anoption.WithAPIKey("sk-ant-test"), anoption.WithMaxRetries(0))
				return func() error {
					m, err := c.Messages.New(ctx, messagesParams())
					if err == nil && len(m.Content) == 0 {
						err = fmt.Errorf("no text")
					}
					return err
				}
			},
			streamSDK: func(ctx context.Context, url string) func() (int, error) {
				c := ansdk.NewClient(anoption.WithoutEnvironmentDefaults(), anoption.WithBaseURL(url), anoption.WithAPIKey("sk-ant-test"), anoption.WithMaxRetries(0))
				return func() (int, error) {
					s := c.Messages.NewStreaming(ctx, messagesParams())
					defer s.Close()
					n := 0
					for s.Next() {
						if ev := s.Current(); ev.Type == "content_block_delta" && ev.Delta.Text != "" {
							n++
						}
					}
					return n, s.Err()
				}
			}},
		{name: "gemini", render: renderGemini,
			stream: func(r *http.Request, _ []byte) bool { return strings.Contains(r.URL.Path, "streamGenerateContent") },
			client: func(url string) chat.Client {
				c, err := gemini.New(context.Background(), geminiConfig(url))
				if err != nil {
					panic(err)
				}
				return c.WithModel("gemini-test")
			},
			respond: func(ctx context.Context, url string) func() error {
				c, err := genai.NewClient(ctx, geminiConfig(url))
				if err != nil {
					panic(err)
				}
				return func() error {
					r, err := c.Models.GenerateContent(ctx, "gemini-test", geminiContents(), geminiGenConfig())
					if err == nil && r.Text() == "" {
						err = fmt.Errorf("no text")
					}
					return err
				}
			},
			streamSDK: func(ctx context.Context, url string) func() (int, error) {
				c, err := genai.NewClient(ctx, geminiConfig(url))
				if err != nil {
					panic(err)
				}
				return func() (int, error) {
					n := 0
					for r, err := range c.Models.GenerateContentStream(ctx, "gemini-test", geminiContents(), geminiGenConfig()) {
						if err != nil {
							return n, err
						}
						if r.Text() != "" {
							n++
						}
					}
					return n, nil
				}
			}},
	}
}

func responsesParams() responses.ResponseNewParams {
	p := responses.ResponseNewParams{Model: "gpt-test", Instructions: param.NewOpt(benchInstructions), Store: param.NewOpt(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}}
	p.Input.OfString = param.NewOpt(benchQuestion)
	return p
}

func messagesParams() ansdk.MessageNewParams {
	return ansdk.MessageNewParams{Model: "claude-test", MaxTokens: anthropic.DefaultMaxTokens,
		System:   []ansdk.TextBlockParam{{Text: benchInstructions}},
		Messages: []ansdk.MessageParam{ansdk.NewUserMessage(ansdk.NewTextBlock(benchQuestion))}}
}

func geminiConfig(url string) *genai.ClientConfig {
	return &genai.ClientConfig{APIKey: "AIza-test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}}
}

func geminiContents() []*genai.Content {
	return []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: benchQuestion}}}}
}

func geminiGenConfig() *genai.GenerateContentConfig {
	no := false
	return &genai.GenerateContentConfig{AutomaticContinuation: &no, SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: benchInstructions}}}}
}

// renderChat writes a turn as a Chat Completions answer (text only): a completion, or its chunks with the
// usage last.
func renderChat(w io.Writer, n int, tu turn, stream bool) {
	if !stream {
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":1741570283,"model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}}`, n, q(tu.text))
		return
	}
	chunk := func(delta, finish, usage string) {
		event(w, "", fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","created":1741570283,"model":"gpt-test","choices":[%s],"usage":%s}`, n,
			map[bool]string{true: `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}`, false: ""}[delta != ""], usage))
	}
	chunk(`{"role":"assistant","content":""}`, "null", "null")
	for _, p := range chunks(tu.text, 8) {
		chunk(`{"content":`+q(p)+`}`, "null", "null")
	}
	chunk(`{}`, `"stop"`, "null")
	chunk("", "", `{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}`)
	event(w, "", "[DONE]")
}

// benchServer answers every request with the same rendered bytes, whole or streamed as the request asks.
func benchServer(b *testing.B, p benchProvider) string {
	var whole, streamed bytes.Buffer
	p.render(&whole, 1, turn{text: benchText}, false)
	p.render(&streamed, 1, turn{text: benchText}, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if p.stream(r, body) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(streamed.Bytes())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(whole.Bytes())
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkOverheadRound is one whole request per provider: through the client, and with the SDK alone.
func BenchmarkOverheadRound(b *testing.B) {
	for _, p := range benchProviders() {
		url := benchServer(b, p)
		ctx := context.Background()
		b.Run(p.name+"/client", func(b *testing.B) {
			c := p.client(url)
			msgs := []chat.Message{chat.UserText(benchQuestion)}
			opts := &chat.Options{Instructions: benchInstructions}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Respond(ctx, msgs, opts)
				if err != nil || resp.Messages[0].Text() != benchText {
					b.Fatal(err)
				}
			}
		})
		b.Run(p.name+"/sdk", func(b *testing.B) {
			call := p.respond(ctx, url)
			b.ReportAllocs()
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOverheadStream is one streamed request of 60 text deltas per provider, read to its end: through the
// client, and with the SDK alone. ns/delta is the time per op over the deltas.
func BenchmarkOverheadStream(b *testing.B) {
	deltas := len(chunks(benchText, 8))
	for _, p := range benchProviders() {
		url := benchServer(b, p)
		ctx := context.Background()
		b.Run(p.name+"/client", func(b *testing.B) {
			c := p.client(url)
			msgs := []chat.Message{chat.UserText(benchQuestion)}
			opts := &chat.Options{Instructions: benchInstructions}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for u, err := range c.Stream(ctx, msgs, opts) {
					if err != nil {
						b.Fatal(err)
					}
					for _, part := range u.Parts {
						if _, ok := part.(chat.Text); ok {
							n++
						}
					}
				}
				if n != deltas {
					b.Fatalf("%d deltas, want %d", n, deltas)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
		})
		b.Run(p.name+"/sdk", func(b *testing.B) {
			call := p.streamSDK(ctx, url)
			b.ReportAllocs()
			for b.Loop() {
				n, err := call()
				if err != nil || n != deltas {
					b.Fatalf("%d deltas (want %d): %v", n, deltas, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
		})
	}
}
