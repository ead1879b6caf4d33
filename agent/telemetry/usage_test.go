package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/telemetry"
)

// TestChatCacheAndReasoning checks the cached and reasoning token counts on the span, under the conventions'
// names, and that captured content shows reasoning text and files but never a signature or a file's bytes.
func TestChatCacheAndReasoning(t *testing.T) {
	is := is.New(t)
	h := newHarness(t, true)
	thinking := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Model: "claude-test", FinishReason: chat.FinishStop,
			Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
				chat.Reasoning{Provider: "anthropic", Text: "Check the ticket.", Signature: "secret-signature"},
				chat.Text{Text: "It is open."}}}},
			Usage: chat.Usage{InputTokens: 2000, OutputTokens: 300, TotalTokens: 2300, CacheReadTokens: 1800, CacheWriteTokens: 150, ReasoningTokens: 120}}, nil
	})
	in := []chat.Message{chat.UserFile("What is this?",
		chat.File{MediaType: "image/png", Data: []byte("PNG-BYTES-SECRET")},
		chat.File{MediaType: "application/pdf", URL: "https://example.com/manual.pdf"})}
	_, err := chat.Collect(h.in.Client(thinking, "anthropic").Stream(context.Background(), in, &chat.Options{Model: "claude-test"}))
	is.NoErr(err)
	a := attrs(h.spans.Ended()[0])
	is.Equal(a[telemetry.ProviderName].AsString(), "anthropic")
	is.Equal(a[telemetry.InputTokens].AsInt64(), int64(2000))
	is.Equal(a[telemetry.CacheReadTokens].AsInt64(), int64(1800))
	is.Equal(a[telemetry.CacheCreationTokens].AsInt64(), int64(150))
	is.Equal(a[telemetry.ReasoningTokens].AsInt64(), int64(120))
	is.Equal(string(telemetry.CacheReadTokens), "gen_ai.usage.cache_read.input_tokens")
	is.Equal(string(telemetry.CacheCreationTokens), "gen_ai.usage.cache_creation.input_tokens")
	is.Equal(string(telemetry.ReasoningTokens), "gen_ai.usage.reasoning.output_tokens")

	out := a[telemetry.OutputMessages].AsString()
	var msgs []map[string]any
	is.NoErr(json.Unmarshal([]byte(out), &msgs))
	is.Equal(msgs[0]["parts"], []any{
		map[string]any{"type": "reasoning", "content": "Check the ticket."}, // the streamed deltas joined
		map[string]any{"type": "text", "content": "It is open."}})
	is.True(!strings.Contains(out, "secret-signature"))
	input := a[telemetry.InputMessages].AsString()
	is.True(strings.Contains(input, `{"type":"blob","modality":"image","mime_type":"image/png"}`))
	is.True(strings.Contains(input, `{"type":"uri","modality":"document","mime_type":"application/pdf","uri":"https://example.com/manual.pdf"}`))
	is.True(!strings.Contains(input, "UE5HLUJZVEVTLVNFQ1JFVA")) // no bytes, not even in base64
}

func TestProviderNameOf(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]string{"openai": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini",
		"vertex": "gcp.vertex_ai", "bedrock": "aws.bedrock", "my-proxy": "my-proxy"} {
		is.Equal(telemetry.ProviderNameOf(name), want)
	}
	h := newHarness(t, false)
	_, err := h.in.Client(model, "gemini").Respond(context.Background(), msgs, opts)
	is.NoErr(err)
	is.Equal(attrs(h.spans.Ended()[0])[telemetry.ProviderName].AsString(), "gcp.gemini")
}
