package eval_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/eval"
)

// A case whose expected tool is not the one the model picks fails on a real host, with a reason a person reads:
// the call expected, and the call made.
func TestWrongTrajectoryFailsWithReason(t *testing.T) {
	is := is.New(t)
	c, err := eval.ParseCase([]byte(`{"name":"get_ticket","text":"Is ticket 4711 open?",
		"expect":{"trajectory":{"calls":[{"tool":"search_tickets","arguments":{"query":"4711"}}]}}}`))
	is.NoErr(err)
	res, err := eval.Evaluate(t.Context(), newHost(t, c), c, nil) // replays get_ticket's cassette
	is.NoErr(err)
	is.True(!res.Passed)
	is.Equal(res.Scores[0].Name, eval.ScoreTrajectory)
	is.Equal(res.Scores[0].Value, 0.0)
	is.Equal(res.Reason, `tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be search_tickets(query="4711"), got get_ticket {"number":4711}`)
}

func ptr[T any](v T) *T { return &v }

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{ID: name + args, Name: name, Arguments: json.RawMessage(args)}
}

func TestScorers(t *testing.T) {
	a1, a2, s := call("get_ticket", `{"number":4711}`), call("get_ticket", `{"number":4712}`), call("search_tickets", `{"query":"x"}`)
	for _, tc := range []struct {
		name   string
		expect string
		run    eval.Run
		score  float64
		reason string
	}{
		{"exact holds", `{"trajectory":{"calls":[{"tool":"get_ticket","arguments":{"number":4711}}]}}`, eval.Run{Calls: []chat.ToolCall{a1}}, 1, "1 of 1"},
		{"exact argument differs", `{"trajectory":{"calls":[{"tool":"get_ticket","arguments":{"number":4711}}]}}`, eval.Run{Calls: []chat.ToolCall{a2}}, 0, "expected call 1 to be get_ticket(number=4711), got get_ticket {\"number\":4712}"},
		{"exact extra call", `{"trajectory":{"calls":[{"tool":"get_ticket"}]}}`, eval.Run{Calls: []chat.ToolCall{a1, s}}, 0.5, "the first extra is search_tickets"},
		{"exact too few", `{"trajectory":{"calls":[{"tool":"get_ticket"},{"tool":"search_tickets"}]}}`, eval.Run{Calls: []chat.ToolCall{a1}}, 0.5, "made only 1 calls"},
		{"in order with others between", `{"trajectory":{"match":"in_order","calls":[{"tool":"get_ticket"},{"tool":"search_tickets"}]}}`, eval.Run{Calls: []chat.ToolCall{a1, a2, s}}, 1, "2 of 2"},
		{"in order reversed", `{"trajectory":{"match":"in_order","calls":[{"tool":"search_tickets"},{"tool":"get_ticket"}]}}`, eval.Run{Calls: []chat.ToolCall{a1, s}}, 0.5, "did not make it"},
		{"any order", `{"trajectory":{"match":"any_order","calls":[{"tool":"get_ticket","arguments":{"number":4712}},{"tool":"get_ticket","arguments":{"number":4711}}]}}`, eval.Run{Calls: []chat.ToolCall{a1, a2}}, 1, "2 of 2"},
		{"any order counts each call once", `{"trajectory":{"match":"any_order","calls":[{"tool":"get_ticket"},{"tool":"get_ticket"}]}}`, eval.Run{Calls: []chat.ToolCall{a1}}, 0.5, "did not make it"},
		{"no calls expected", `{"trajectory":{"calls":[]}}`, eval.Run{Calls: []chat.ToolCall{s}}, 0, "expected no tool calls, got search_tickets"},
		{"not called", `{"not_called":["close_ticket","search_tickets"]}`, eval.Run{Calls: []chat.ToolCall{a1, s}}, 0.5, "called what it must not: search_tickets"},
		{"approvals", `{"approvals":["close_ticket"]}`, eval.Run{}, 0, "expected the run to wait for approval of close_ticket, it waited for nothing"},
		{"contains ignores case", `{"answer":{"contains":["OPEN"]}}`, eval.Run{Answer: "It is open."}, 1, "1 of 1"},
		{"not contains", `{"answer":{"not_contains":["closed"],"contains":["open"]}}`, eval.Run{Answer: "It is closed."}, 0, `does not contain "open"; contains "closed"`},
		{"regex", `{"answer":{"regex":"^Ticket \\d+"}}`, eval.Run{Answer: "It is ticket 4711"}, 0, "does not match"},
		{"schema", `{"answer":{"schema":{"type":"object","required":["n"]}}}`, eval.Run{Answer: `{"m":1}`}, 0, "does not match the schema"},
		{"schema not JSON", `{"answer":{"schema":{"type":"object"}}}`, eval.Run{Answer: `It is open.`}, 0, "is not JSON"},
		{"rounds", `{"max_rounds":2}`, eval.Run{Rounds: 4}, 0.5, "4 model calls, more than 2"},
		{"tokens", `{"max_tokens":100}`, eval.Run{Usage: chat.Usage{InputTokens: 80, OutputTokens: 20}}, 1, "100 tokens, at most 100"},
		{"reference, same words", `{"answer":{"reference":"Ticket 4711 is open."}}`, eval.Run{Answer: "ticket 4711 is OPEN"}, 1, "1 of 1"},
		{"reference, half the words", `{"answer":{"reference":"ticket 4711 is open"}}`, eval.Run{Answer: "ticket 4711 was closed"}, 0.5, "shares 0.50 of its words"},
		{"reference and contains", `{"answer":{"reference":"a b c d","contains":["x"]}}`, eval.Run{Answer: "x"}, 0.5, "shares 0.00"},
		{"cost within", `{"max_cost":0.001}`, eval.Run{Usage: chat.Usage{InputTokens: 1000, OutputTokens: 100}}, 1, "cost 0.00056, at most 0.001"},
		{"cost past", `{"max_cost":0.00028}`, eval.Run{Usage: chat.Usage{InputTokens: 1000, OutputTokens: 100}}, 0.5, "cost 0.00056, more than 0.00028"},
		{"spans: what ran", `{"spans":{"executed":["close_ticket"]}}`, eval.Run{}, 0, "expected the tools close_ticket to run, the spans show nothing"},
		{"plan: a change in plan mode", `{"plan":{"proposed":false}}`, eval.Run{PlanCalls: []chat.ToolCall{a1, call("close_ticket", `{"number":4711}`)}, ReadOnly: map[string]bool{"get_ticket": true}}, 0.5, `not read-only in plan mode: close_ticket {"number":4711}`},
		{"plan: none proposed", `{"plan":{"proposed":true,"contains":["close"]}}`, eval.Run{PlanCalls: []chat.ToolCall{a1}, ReadOnly: map[string]bool{"get_ticket": true}}, 0.5, "proposed no plan"},
		{"plan: proposed", `{"plan":{"proposed":true,"contains":["Close"]}}`, eval.Run{PlanCalls: []chat.ToolCall{a1, call("exit_plan_mode", `{}`)}, ReadOnly: map[string]bool{"get_ticket": true}, Plan: ptr("1. close ticket 4711")}, 1, "all read-only; a plan was proposed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			mode := ""
			if strings.Contains(tc.expect, `"plan"`) {
				mode = `"mode":"plan",`
			}
			c, err := eval.ParseCase([]byte(`{"text":"q",` + mode + `"price":{"input_per_million":0.4,"output_per_million":1.6},"expect":` + tc.expect + `}`))
			is.NoErr(err)
			scores := c.Score(&tc.run)
			is.Equal(len(scores), 1)
			is.Equal(scores[0].Value, tc.score)
			is.True(strings.Contains(scores[0].Reason, tc.reason)) // the reason says why
			passed, why := c.Passed(scores)
			is.Equal(passed, tc.score == 1)
			is.Equal(why == "", passed)
		})
	}
}

// A threshold lets a case pass with a score under 1.
func TestThresholds(t *testing.T) {
	is := is.New(t)
	c, err := eval.ParseCase([]byte(`{"text":"q","expect":{"max_rounds":2},"thresholds":{"rounds":0.5}}`))
	is.NoErr(err)
	passed, _ := c.Passed(c.Score(&eval.Run{Rounds: 4}))
	is.True(passed) // 0.5 reaches 0.5
	passed, why := c.Passed(c.Score(&eval.Run{Rounds: 5}))
	is.True(!passed)
	is.True(strings.Contains(why, "rounds 0.40 < 0.50"))
}

func TestParseCaseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"no input", `{"expect":{}}`, `"text" or as "messages"`},
		{"both inputs", `{"text":"a","messages":[{"role":"user","parts":[]}],"expect":{}}`, `one of them`},
		{"unknown field", `{"text":"a","expect":{"trajectroy":{}}}`, `unknown field "trajectroy"`},
		{"bad match", `{"text":"a","expect":{"trajectory":{"match":"some","calls":[]}}}`, `want exact, in_order or any_order`},
		{"no tool", `{"text":"a","expect":{"trajectory":{"calls":[{}]}}}`, `names no tool`},
		{"bad regex", `{"text":"a","expect":{"answer":{"regex":"("}}}`, `answer regex`},
		{"bad schema", `{"text":"a","expect":{"answer":{"schema":{"type":12}}}}`, `answer schema`},
		{"bad threshold", `{"text":"a","expect":{},"thresholds":{"rounds":2}}`, `want 0 to 1`},
		{"negative limit", `{"text":"a","expect":{"max_rounds":-1}}`, `cannot be negative`},
		{"repeat zero times", `{"text":"a","repeat":{"k":0},"expect":{}}`, `want k from 1 to 100`},
		{"repeat rate past 1", `{"text":"a","repeat":{"k":3,"min_pass_rate":1.5},"expect":{}}`, `a rate from 0 to 1`},
		{"plan outside plan mode", `{"text":"a","expect":{"plan":{"proposed":true}}}`, `"mode": "plan"`},
		{"negative price", `{"text":"a","price":{"input_per_million":-1},"expect":{}}`, `price cannot be negative`},
		{"negative cost", `{"text":"a","expect":{"max_cost":-1}}`, `cannot be negative`},
		{"negative tool errors", `{"text":"a","expect":{"spans":{"max_tool_errors":-1}}}`, `cannot be negative`},
		{"trailing value", `{"text":"a","expect":{}} {}`, `more than one`},
		{"not JSON", `text: a`, `invalid case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := eval.ParseCase([]byte(tc.data))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // the error says what is wrong
			is.True(strings.Contains(err.Error(), "invalid case"))
		})
	}
}

// ParseCase never panics, and a case it accepts can be scored on an empty run.
func FuzzParseCase(f *testing.F) {
	f.Add([]byte(`{"text":"q","expect":{"trajectory":{"match":"in_order","calls":[{"tool":"a","arguments":{"n":1}}]},"answer":{"regex":"x","schema":{"type":"object"}},"max_rounds":1}}`))
	f.Add([]byte(`{"messages":[{"role":"user","parts":[{"type":"text","text":"q"}]}],"approve":true,"expect":{"approvals":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := eval.ParseCase(data)
		if err != nil {
			return
		}
		for _, s := range c.Score(&eval.Run{}) {
			if s.Value < 0 || s.Value > 1 || s.Reason == "" {
				t.Fatalf("score %+v", s)
			}
		}
	})
}
