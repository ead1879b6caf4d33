package eval_test

import (
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/eval"
)

// A case's scorers judge what a run did: here a model that searched where it should have read the ticket.
func ExampleCase_Score() {
	c, err := eval.ParseCase([]byte(`{
		"text": "Is ticket 4711 open?",
		"expect": {
			"trajectory": {"calls": [{"tool": "get_ticket", "arguments": {"number": 4711}}]},
			"answer": {"contains": ["open"]},
			"max_rounds": 2
		}
	}`))
	if err != nil {
		panic(err)
	}
	run := &eval.Run{
		Calls:  []chat.ToolCall{{ID: "call_1", Name: "search_tickets", Arguments: json.RawMessage(`{"query":"4711"}`)}},
		Answer: "Ticket 4711 is open.",
		Rounds: 2,
	}
	scores := c.Score(run)
	for _, s := range scores {
		fmt.Printf("%s %.2f: %s\n", s.Name, s.Value, s.Reason)
	}
	passed, why := c.Passed(scores)
	fmt.Println(passed, why)
	// Output:
	// tool_trajectory_avg_score 0.00: expected call 1 to be get_ticket(number=4711), got search_tickets {"query":"4711"}
	// response_match_score 1.00: 1 of 1 checks hold
	// rounds 1.00: 2 model calls, at most 2
	// false tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be get_ticket(number=4711), got search_tickets {"query":"4711"}
}
