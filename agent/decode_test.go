package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	ex "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// ticketsHost runs the generated tools of examples/tickets, whose close_ticket requires approval.
func ticketsHost(t *testing.T, m chat.Client, cfg agent.Config) (*agent.Host, *ex.MemoryClient) {
	t.Helper()
	client := ex.NewMemoryClient(ex.SampleTickets()...)
	cfg.Client = m
	cfg.Tools = append(cfg.Tools, &ex.Tickets{Client: client})
	h, err := agent.NewHost(&plain{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h, client
}

// isOpen reports whether the sample ticket is still open.
func isOpen(t *testing.T, c *ex.MemoryClient, number int) bool {
	t.Helper()
	tk, ok, err := c.Get(context.Background(), number)
	if err != nil || !ok {
		t.Fatalf("ticket %d: %v", number, err)
	}
	return tk.Status != ex.StatusClosed
}

func TestInvalidArgumentsOfGeneratedToolNeverAskForApproval(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"out of range", `{"number":0,"reason":"done"}`, "number"},
		{"missing", `{"number":4711}`, "reason"},
		{"wrong type", `{"number":"one","reason":"done"}`, "number"},
		{"unknown property", `{"number":4711,"reason":"done","force":true}`, "force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(call(tc("1", "close_ticket", tt.args)), say("sorry"))
			h, client := ticketsHost(t, m, agent.Config{})
			res, err := h.Run(context.Background(), agent.Text("close it"))
			is.NoErr(err)
			is.Equal(len(res.Pending), 0)            // no approval request
			is.Equal(len(requests(res.Messages)), 0) // not even answered ones
			got := results(res.New)["1"]
			is.True(got.Error != "")                      // the model reads the decoder's message
			is.True(strings.Contains(got.Error, tt.want)) // naming the offending property
			is.Equal(res.Text(), "sorry")
			is.True(isOpen(t, client, 4711))
		})
	}
}

func TestValidArgumentsOfGeneratedToolAskForApproval(t *testing.T) {
	is := is.New(t)
	m := script(call(tc("1", "close_ticket", `{"number":4711,"reason":"done"}`)))
	h, client := ticketsHost(t, m, agent.Config{})
	res, err := h.Run(context.Background(), agent.Text("close it"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].ToolID, ex.TicketsCloseTicketID)
	is.True(isOpen(t, client, 4711))
}

func TestRuleFor(t *testing.T) {
	oldTickets := agent.RuleFor(ex.TicketsCloseTicketID, func(_ context.Context, in ex.CloseInput) agent.Decision {
		switch {
		case in.Number == 4711:
			return agent.Allow
		case strings.Contains(in.Reason, "spam"):
			return agent.Deny
		}
		return agent.Ask
	})
	wrongType := agent.RuleFor(ex.TicketsCloseTicketID, func(context.Context, ex.GetInput) agent.Decision {
		return agent.Allow
	})
	otherTool := agent.RuleFor(ex.TicketsGetTicketID, func(context.Context, ex.GetInput) agent.Decision {
		return agent.Allow
	})
	tests := []struct {
		name    string
		rule    agent.Rule
		args    string
		open    bool
		pending int
		want    string
	}{
		{"allowed by its arguments", oldTickets, `{"number":4711,"reason":"done"}`, false, 0, ""},
		{"denied by its arguments", oldTickets, `{"number":4714,"reason":"spam"}`, true, 0, "The tool call was denied."}, // what the model reads of a call denied without a reason
		{"left to the person", oldTickets, `{"number":4714,"reason":"done"}`, true, 1, ""},
		{"a rule of another input type asks", wrongType, `{"number":4711,"reason":"done"}`, true, 1, ""},
		{"a rule of another tool asks", otherTool, `{"number":4711,"reason":"done"}`, true, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(call(tc("1", "close_ticket", tt.args)), say("ok"))
			number := 4711
			if strings.Contains(tt.args, `"number":4714`) {
				number = 4714
			}
			h, client := ticketsHost(t, m, agent.Config{Rules: []agent.Rule{tt.rule}})
			res, err := h.Run(context.Background(), agent.Text("close it"))
			is.NoErr(err)
			is.Equal(len(res.Pending), tt.pending)
			is.Equal(isOpen(t, client, number), tt.open)
			if tt.want != "" {
				is.Equal(lastResults(m)["1"].Error, tt.want)
			}
		})
	}
}

func TestRuleForWithoutDecoderAsks(t *testing.T) {
	is := is.New(t)
	rule := agent.RuleFor("test.close", func(context.Context, struct{}) agent.Decision { return agent.Allow })
	tool := &toolset.Tool{Name: "close", ID: "test.close"}
	is.Equal(rule(context.Background(), tool, tc("1", "close", `{}`)), agent.Ask)
}
