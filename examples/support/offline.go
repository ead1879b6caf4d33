package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
)

// offlineModel is the model the example runs without an API key. It reads the conversation the way a model
// would, with a few rules, and picks one tool at a time, so that the story is the same on every machine.
// (chattest.TestModel, which calls every tool it is offered, suits tests of the pipeline better than a story.)
func offlineModel() chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		if n := len(msgs); n > 0 && msgs[n-1].Role == chat.RoleTool {
			return afterResult(msgs, opts), nil
		}
		return onRequest(msgs, opts), nil
	})
}

// onRequest answers the user's message: close a ticket, read one, or search.
func onRequest(msgs []chat.Message, opts *chat.Options) *chat.Response {
	text := userText(msgs)
	number := ticketNumber(text)
	switch {
	case number > 0 && strings.Contains(strings.ToLower(text), "close") && offers(opts, "close_ticket"):
		return call(msgs, "close_ticket", map[string]any{"number": number, "reason": reason(text)})
	case number > 0:
		return call(msgs, "get_ticket", map[string]any{"number": number})
	default:
		return call(msgs, "search_tickets", map[string]any{"query": topic(text)})
	}
}

// afterResult goes on from the result of the model's last call.
func afterResult(msgs []chat.Message, opts *chat.Options) *chat.Response {
	c, r := lastCall(msgs)
	text := userText(msgs)
	if r.Error != "" {
		if c.Name == agent.ExitPlanModeTool {
			return say("Understood: I stay in plan mode and change nothing until you approve a plan.")
		}
		if c.Name == "close_ticket" {
			return say(fmt.Sprintf("Ticket %d stays open. (%s)", ticketNumber(string(c.Arguments)), r.Error))
		}
		return say(fmt.Sprintf("%s did not work: %s", c.Name, r.Error))
	}
	switch c.Name {
	case "search_tickets":
		var found []tickets.Ticket
		_ = json.Unmarshal(r.Result, &found)
		if len(found) == 0 {
			return say("No open ticket is about that.")
		}
		list := make([]string, len(found))
		for i, tk := range found {
			list[i] = fmt.Sprintf("#%d %q (%s)", tk.Number, tk.Title, tk.Status)
		}
		return say(fmt.Sprintf("Open tickets about %q: %s.", topic(text), strings.Join(list, ", ")))
	case "get_ticket":
		var tk tickets.Ticket
		_ = json.Unmarshal(r.Result, &tk)
		if offers(opts, agent.ExitPlanModeTool) { // plan mode: propose, change nothing
			plan := fmt.Sprintf("1. Close ticket %d (%q),\n   giving the reason %q\n2. Tell the customer it is settled.",
				tk.Number, tk.Title, reason(text))
			return call(msgs, agent.ExitPlanModeTool, map[string]any{"plan": plan})
		}
		return say(fmt.Sprintf("Ticket %d, %q, is %s.", tk.Number, tk.Title, tk.Status))
	case agent.ExitPlanModeTool: // the plan was approved: carry it out
		return call(msgs, "close_ticket", map[string]any{"number": ticketNumber(text), "reason": reason(text)})
	case "close_ticket":
		return say(fmt.Sprintf("Ticket %d is closed.", ticketNumber(string(c.Arguments))))
	}
	return say("Done.")
}

// userText returns the text of the user's last message that has text.
func userText(msgs []chat.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if t := msgs[i].Text(); msgs[i].Role == chat.RoleUser && t != "" {
			return t
		}
	}
	return ""
}

// lastCall returns the last tool result and the call it answers.
func lastCall(msgs []chat.Message) (chat.ToolCall, chat.ToolResult) {
	var r chat.ToolResult
	for _, p := range msgs[len(msgs)-1].Parts {
		if tr, ok := p.(chat.ToolResult); ok {
			r = tr
		}
	}
	for i := len(msgs) - 2; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls() {
			if c.ID == r.CallID {
				return c, r
			}
		}
	}
	return chat.ToolCall{}, r
}

var numberRE = regexp.MustCompile(`\d{3,}`)

// ticketNumber returns the first number of three digits or more in s, or 0.
func ticketNumber(s string) int {
	n, _ := strconv.Atoi(numberRE.FindString(s))
	return n
}

// reason returns what follows the first colon of the user's text, as a sentence.
func reason(text string) string {
	_, r, ok := strings.Cut(text, ":")
	r = strings.TrimSpace(r)
	if !ok || r == "" {
		return "Closed at the customer's request."
	}
	r = strings.ToUpper(r[:1]) + r[1:]
	if !strings.HasSuffix(r, ".") {
		r += "."
	}
	return r
}

// topic returns the word after "about" in the user's text ("Which tickets are about the printer?" → "printer").
func topic(text string) string {
	words := strings.Fields(strings.ToLower(strings.Trim(text, "?.! ")))
	for i, w := range words {
		if w != "about" {
			continue
		}
		for _, next := range words[i+1:] {
			if next != "the" && next != "a" && next != "my" {
				return strings.Trim(next, "?.,!")
			}
		}
	}
	return ""
}

func offers(opts *chat.Options, name string) bool {
	for _, t := range opts.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// call asks for one tool call, numbered after the calls already in the conversation.
func call(msgs []chat.Message, name string, args map[string]any) *chat.Response {
	n := 1
	for _, m := range msgs {
		n += len(m.ToolCalls())
	}
	b, _ := json.Marshal(args)
	return chattest.Calls(chat.ToolCall{ID: "call_" + strconv.Itoa(n), Name: name, Arguments: b})
}

func say(text string) *chat.Response { return chattest.Text(text) }
