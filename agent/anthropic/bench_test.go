package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// The provider's overhead per request, against the same call made with the SDK alone, both over a local server
// answering a recorded message: the difference is the conversion of the conversation and of the answer.

var benchHistory = []chat.Message{
	chat.UserText("Is ticket 4711 open?"),
	{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Reasoning{Provider: anthropic.ProviderName, Text: "I should read ticket 4711.", Signature: "EqQBCkYIBxgCKkBAp"},
		chat.ToolCall{ID: "toolu_01", Name: "get_ticket", Arguments: []byte(`{"number":4711}`)}}},
	{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "toolu_01", Result: []byte(`{"number":4711,"status":"open","title":"Printer on floor 3 is out of toner"}`)}}},
}

func benchSDKMessages() []sdk.MessageParam {
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Is ticket 4711 open?")),
		sdk.NewAssistantMessage(sdk.NewThinkingBlock("EqQBCkYIBxgCKkBAp", "I should read ticket 4711."),
			sdk.NewToolUseBlock("toolu_01", []byte(`{"number":4711}`), "get_ticket")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_01", `{"number":4711,"status":"open","title":"Printer on floor 3 is out of toner"}`, false)),
	}
}

const benchAnswer = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
	`"content":[{"type":"thinking","thinking":"The ticket is open.","signature":"ErUBCkYIAxgC"},{"type":"text","text":"Ticket 4711 is open: the printer on floor 3 is out of toner."}],` +
	`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":412,"output_tokens":38,"cache_creation_input_tokens":0,"cache_read_input_tokens":380}}`

func benchServer(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, benchAnswer)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func BenchmarkRespond(b *testing.B) {
	c := anthropic.New(option.WithoutEnvironmentDefaults(), option.WithBaseURL(benchServer(b)), option.WithAPIKey(testKey)).
		WithModel("claude-sonnet-4-5")
	opts := &chat.Options{Instructions: "You help with support tickets."}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Respond(ctx, benchHistory, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRespondSDK(b *testing.B) {
	c := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(benchServer(b)), option.WithAPIKey(testKey), option.WithMaxRetries(0))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		params := sdk.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: anthropic.DefaultMaxTokens,
			System: []sdk.TextBlockParam{{Text: "You help with support tickets."}}, Messages: benchSDKMessages()}
		if _, err := c.Messages.New(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}
