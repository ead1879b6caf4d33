package main

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
)

// offlineModel reads the ticket the user names with get_ticket, then answers with a verdict by a few rules, in
// the way the request asks for it: as JSON text (structured output) or as a call of the answer tool. It leaves
// the team out of an escalation until it is told to name one.
func offlineModel() chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		last := msgs[len(msgs)-1]
		if last.Role == chat.RoleUser && !strings.Contains(last.Text(), "not accepted") {
			n := regexp.MustCompile(`\d+`).FindString(last.Text())
			return chattest.Calls(chattest.Call("call_get", "get_ticket", `{"number":`+n+`}`)), nil
		}
		var t tickets.Ticket
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok && r.CallID == "call_get" {
					_ = json.Unmarshal(r.Result, &t)
				}
			}
		}
		v := verdictOn(t, strings.Contains(last.Text(), "assignee"))
		answer, _ := json.Marshal(v)
		for _, tool := range opts.Tools {
			if tool.Name == agent.AnswerToolName {
				return chattest.Calls(chattest.Call("call_answer", agent.AnswerToolName, string(answer))), nil
			}
		}
		return chattest.Text(string(answer)), nil
	})
}

// verdictOn decides by the ticket's status, tags and title; told, it names the team of an escalation.
func verdictOn(t tickets.Ticket, told bool) Verdict {
	team := func(s string) *string {
		if !told {
			return nil
		}
		return &s
	}
	switch {
	case t.Status == tickets.StatusClosed:
		return Verdict{Decision: "close", Priority: 5, Reasons: []string{"The ticket was resolved: " + t.Resolution}}
	case slices.Contains(t.Tags, "hardware"):
		return Verdict{Decision: "escalate", Priority: 2, Reasons: []string{"A device fails: " + strings.ToLower(t.Title) + "."}, Assignee: team("hardware")}
	case slices.Contains(t.Tags, "billing"):
		return Verdict{Decision: "escalate", Priority: 3, Reasons: []string{"An invoice is wrong."}, Assignee: team("billing")}
	case strings.Contains(strings.ToLower(t.Title), "log in"):
		return Verdict{Decision: "escalate", Priority: 1, Reasons: []string{"The customer is locked out."}, Assignee: team("accounts")}
	}
	return Verdict{Decision: "answer", Priority: 3, Reasons: []string{"Ticket " + strconv.Itoa(t.Number) + " needs an answer, not a person."}}
}
