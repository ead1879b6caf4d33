package chattest_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// The test model calls each offered tool with arguments that fit its schema, then reports the results.
func ExampleNewTestModel() {
	m := chattest.NewTestModel(&chattest.TestModelOptions{Seed: 1})
	opts := &chat.Options{Tools: []*toolset.Tool{{
		Name:   "get_ticket",
		Schema: []byte(`{"type":"object","properties":{"number":{"type":"integer","minimum":1000,"maximum":9999}},"required":["number"]}`),
	}}}
	ctx := context.Background()

	msgs := []chat.Message{chat.UserText("Look at a ticket")}
	resp, _ := m.Respond(ctx, msgs, opts)
	call := resp.Messages[0].ToolCalls()[0]
	fmt.Println(call.Name, string(call.Arguments))

	msgs = append(msgs, resp.Messages[0], chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{CallID: call.ID, Result: []byte(`{"status":"open"}`)},
	}})
	resp, _ = m.Respond(ctx, msgs, opts)
	fmt.Println(resp.Messages[0].Text())
	// Output:
	// get_ticket {"number":1816}
	// Tool results:
	// - get_ticket returned {"status":"open"}
}

// A script answers in order and keeps what it was asked.
func ExampleScript() {
	s := chattest.NewScript(
		chattest.Calls(chattest.Call("call_1", "get_ticket", `{"number":4711}`)),
		chattest.Text("Ticket 4711 is open."),
	)
	ctx := context.Background()
	first, _ := s.Respond(ctx, []chat.Message{chat.UserText("Is 4711 open?")}, &chat.Options{Model: "m"})
	second, _ := s.Respond(ctx, []chat.Message{chat.UserText("Is 4711 open?"), first.Messages[0]}, &chat.Options{Model: "m"})
	fmt.Println(first.FinishReason, second.Messages[0].Text(), len(s.Requests()))
	// Output: tool_calls Ticket 4711 is open. 2
}
