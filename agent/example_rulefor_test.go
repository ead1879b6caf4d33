package agent_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// A typed approval rule: closing a ticket whose reason says it is a duplicate needs nobody's approval; other
// closings would wait for a person. Invalid arguments never reach the rule or a person: the model reads why.
func ExampleRuleFor() {
	duplicates := agent.RuleFor(ticketsx.TicketsCloseTicketID, func(_ context.Context, in ticketsx.CloseInput) agent.Decision {
		if in.Reason == "duplicate" {
			return agent.Allow
		}
		return agent.Ask
	})
	m := &model{
		calls(
			chat.ToolCall{ID: "1", Name: "close_ticket", Arguments: []byte(`{"number":4711,"reason":"duplicate"}`)},
			chat.ToolCall{ID: "2", Name: "close_ticket", Arguments: []byte(`{"number":0,"reason":"fixed"}`)},
		),
		answer,
	}
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{ticketsToolset()},
		Client:   m,
		Rules:    []agent.Rule{duplicates},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := host.Run(context.Background(), agent.Text("Close 4711 and 0."))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, msg := range res.New {
		for _, p := range msg.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				fmt.Printf("%s: %s%s\n", r.CallID, r.Result, r.Error)
			}
		}
	}
	for _, p := range res.Pending {
		fmt.Printf("waiting for approval: %s %s\n", p.Call.Name, p.Call.Arguments)
	}
	// Output:
	// 2: "number" must be at least 1, got 0
	// 1: null
}
