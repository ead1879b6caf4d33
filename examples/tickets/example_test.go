package tickets_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// Calling the generated tools directly, as the tool loop of a run does.
func Example() {
	ctx := context.Background()
	ts := &tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	tools, err := ts.Tools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, tool := range tools {
		fmt.Println(tool.Name, tool.ReadOnly, tool.RequiresApproval)
	}

	get := tools[1]
	res, err := get.Call(ctx, &toolset.Call{ID: "call-1", Arguments: json.RawMessage(`{"number":4714}`)})
	fmt.Println(string(res), err)
	_, err = get.Call(ctx, &toolset.Call{ID: "call-2", Arguments: json.RawMessage(`{"number":-1}`)})
	fmt.Println(err)
	// Output:
	// search_tickets true false
	// get_ticket true false
	// close_ticket false true
	// {"number":4714,"title":"Cannot log in after password reset","status":"open","opened":"2026-03-20T09:30:00Z"} <nil>
	// "number" must be at least 1, got -1
}
