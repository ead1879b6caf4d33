package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// The three ways a run ends, read the same way: Run returns a Result with every error, and its text, pending
// requests, mode and usage need no nil check.
func ExampleResult() {
	m := &model{
		func([]chat.Message) chat.Message { // answers at once
			return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "How can I help?"}}}
		},
		calls(chat.ToolCall{ID: "call_1", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711,"reason":"Fixed."}`)}),
	}
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: m})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	show := func(res *agent.Result, err error) {
		fmt.Printf("text %q, waiting %v, pending %d, mode %q, error %v\n", res.Text(), res.Waiting(), len(res.Pending), res.Mode, err != nil)
	}

	// Answered: the reply is the text of the last assistant message.
	show(host.Run(ctx, agent.Text("Hello?")))

	// Pending approval: the model's call waits for a person, and the run has no text yet.
	res, err := host.Run(ctx, agent.Text("Please close ticket 4711."))
	show(res, err)
	for _, p := range res.Pending {
		fmt.Printf("approve %s(%s)?\n", p.Call.Name, p.Call.Arguments)
	}

	// Failed: the settings document is not JSON, so the run never starts; the Result is empty, not nil.
	show(host.Run(ctx, agent.Text("Hello?"), agent.RunSettings(json.RawMessage(`{`))))
	// Output:
	// text "How can I help?", waiting false, pending 0, mode "", error false
	// text "", waiting true, pending 1, mode "", error false
	// approve close_ticket({"number":4711,"reason":"Fixed."})?
	// text "", waiting false, pending 0, mode "", error true
}
