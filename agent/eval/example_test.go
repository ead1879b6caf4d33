package eval_test

import (
	"encoding/json"
	"fmt"
	"os"

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

// Two runs of a suite compare case by case: what regressed, and by how much.
func ExampleCompare() {
	before := []eval.Result{
		{Suite: "TestEvals", Case: "close_waits", Passed: true, Scores: []eval.Score{{Name: eval.ScoreApprovals, Value: 1}}},
		{Suite: "TestEvals", Case: "read_ticket", Passed: true, Scores: []eval.Score{{Name: eval.ScoreTrajectory, Value: 1}}},
	}
	after := []eval.Result{
		{Suite: "TestEvals", Case: "close_waits", Reason: "approvals 0.00 < 1.00: it waited for nothing",
			Scores: []eval.Score{{Name: eval.ScoreApprovals, Value: 0}}},
		{Suite: "TestEvals", Case: "read_ticket", Passed: true, Scores: []eval.Score{{Name: eval.ScoreTrajectory, Value: 1}}},
	}
	changes := eval.Compare(before, after)
	for _, c := range changes {
		fmt.Println(c.Case, c.Kind, c.Failing())
	}
	_ = eval.WriteTable(os.Stdout, changes, false)
	// Output:
	// close_waits regressed true
	// read_ticket same false
	// case                   was   now   change     scores
	// TestEvals/close_waits  pass  FAIL  regressed  approvals 1.00→0.00 (-1.00); approvals 0.00 < 1.00: it waited for nothing
}

// A conversation's last turn becomes a case: its question, the calls made and the answer, to edit and keep.
func ExampleFromMessages() {
	msgs, err := chat.UnmarshalMessages([]byte(`[
		{"role":"user","parts":[{"type":"text","text":"Is ticket 4711 open?"}]},
		{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}}]},
		{"role":"tool","parts":[{"type":"tool_result","call_id":"call_1","result":{"number":4711,"status":"open"}}]},
		{"role":"assistant","parts":[{"type":"text","text":"Ticket 4711 is open."}]}
	]`))
	if err != nil {
		panic(err)
	}
	c, err := eval.FromMessages(msgs)
	if err != nil {
		panic(err)
	}
	c.Description = ""
	data, _ := c.MarshalIndent()
	fmt.Print(string(data))
	// Output:
	// {
	//   "text": "Is ticket 4711 open?",
	//   "expect": {
	//     "trajectory": {
	//       "match": "exact",
	//       "calls": [
	//         {
	//           "tool": "get_ticket",
	//           "arguments": {
	//             "number": 4711
	//           }
	//         }
	//       ]
	//     },
	//     "approvals": [],
	//     "answer": {
	//       "reference": "Ticket 4711 is open."
	//     }
	//   },
	//   "thresholds": {
	//     "response_match_score": 0.8
	//   }
	// }
}
