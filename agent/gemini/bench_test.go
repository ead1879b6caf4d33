package gemini_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// The provider's overhead per request, against the same call made with the SDK alone, both over the local
// server: the difference is the conversion of the conversation and of the answer.

var benchHistory = []chat.Message{
	chat.UserText("Is ticket 4711 open?"),
	{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c1", Name: "get_ticket", Arguments: []byte(`{"number":4711}`)}}},
	{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c1", Result: []byte(`{"number":4711,"status":"open","title":"Printer on floor 3 is out of toner"}`)}}},
}

func benchContents() []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "Is ticket 4711 open?"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "get_ticket", Args: map[string]any{"number": 4711}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "get_ticket",
			Response: map[string]any{"output": map[string]any{"number": 4711, "status": "open", "title": "Printer on floor 3 is out of toner"}}}}}},
	}
}

func BenchmarkRespond(b *testing.B) {
	_, url := serve(b, answer{status: 200, body: okBody})
	c := newClient(b, url)
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
	_, url := serve(b, answer{status: 200, body: okBody})
	sdk, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: url}})
	if err != nil {
		b.Fatal(err)
	}
	no := false
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		cfg := &genai.GenerateContentConfig{AutomaticContinuation: &no,
			SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "You help with support tickets."}}}}
		if _, err := sdk.Models.GenerateContent(ctx, "gemini-2.5-flash", benchContents(), cfg); err != nil {
			b.Fatal(err)
		}
	}
}
