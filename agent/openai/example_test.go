package openai_test

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// The client talks to any server that speaks the Chat Completions wire format; here, a local one.
func Example() {
	srv := openaitest.NewServer(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Name: "get_ticket", Arguments: `{"number":4711}`}}},
		openaitest.Reply{Text: "Ticket 4711 is open."},
	)
	defer srv.Close()

	c := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("test")).WithModel("gpt-4.1-mini")
	ctx := context.Background()

	msgs := []chat.Message{chat.UserText("Is ticket 4711 open?")}
	resp, err := c.Respond(ctx, msgs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Messages[0].ToolCalls()[0]
	fmt.Println(resp.FinishReason, call.Name, string(call.Arguments))

	msgs = append(msgs, resp.Messages[0], chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{CallID: call.ID, Result: []byte(`{"status":"open"}`)},
	}})
	for u, err := range c.Stream(ctx, msgs, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(chat.Message{Parts: u.Parts}.Text())
	}
	fmt.Println()
	// Output:
	// tool_calls get_ticket {"number":4711}
	// Ticket 4711 is open.
}
