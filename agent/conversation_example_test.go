package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// A conversation kept by a store: each run passes only its input, or only its approval answers, and the store
// keeps the history, the pending requests, the mode and the standing approvals.
func ExampleConversation() {
	store := memory.New() // postgres.New(ctx, pool, nil) across processes
	m := &model{
		calls(chat.ToolCall{ID: "call_1", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711,"reason":"Fixed."}`)}),
		answer,
		func(msgs []chat.Message) chat.Message {
			// The third run's model call sees the whole conversation, loaded from the store.
			return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: fmt.Sprintf("%d messages so far", len(msgs))}}}
		},
	}
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: m, Store: store})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	conv := []agent.RunOption{agent.SettingsID("tenant-42"), agent.Conversation("conv-1")}

	res, err := host.Run(ctx, append(conv, agent.Text("Please close ticket 4711."))...)
	if err != nil {
		panic(err)
	}
	fmt.Println("pending:", res.Pending[0].Call.Name)

	// Only the answer: the store holds the request it binds to.
	res, err = host.Run(ctx, append(conv, agent.Approve(res.Pending[0].ID))...)
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Text())

	res, err = host.Run(ctx, append(conv, agent.Text("Thanks!"))...)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())

	entries, err := store.LoadAll(ctx, "tenant-42", "conv-1")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Print(e.Type, " ")
	}
	fmt.Println()
	// Output:
	// pending: close_ticket
	// call_1 -> null
	// 5 messages so far
	// run_start input response approval_requests run_end run_start input approval_answers tool_results response run_end run_start input response run_end
}
