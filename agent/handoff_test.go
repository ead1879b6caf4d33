package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// inConv are the options of a run in the conversation id of the test tenant.
func inConv(id string, opts ...agent.RunOption) []agent.RunOption {
	return append(opts, agent.SettingsID(tenant), agent.Conversation(id))
}

// runEnds returns the agent each stored run end records, "" for none.
func runEnds(t *testing.T, s storage.Store, id string) []string {
	t.Helper()
	all, err := s.LoadAll(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range all {
		if e.Type != storage.EntryRunEnd {
			continue
		}
		var d struct {
			Agent string `json:"agent"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Agent)
	}
	return out
}

// used gives a scripted response the usage of oneUsage.
func used(r *chat.Response) *chat.Response { r.Usage = oneUsage; return r }

func TestHandoffWithinRun(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		billingModel := chattest.NewScript(
			used(chattest.Calls(chattest.Call("b1", "lookup_invoice", `{"number":12}`))),
			used(chattest.Text("Invoice 12 was paid on 3 March.")),
		)
		billing := namedHost(t, "billing", billingModel, agent.Config{Store: s}, echo("lookup_invoice"))
		frontModel := chattest.NewScript(used(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{"reason":"an invoice question"}`))))
		front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}}, echo("search"))

		res, err := front.Run(ctx, inConv("c1", agent.Text("was invoice 12 paid?"))...)
		is.NoErr(err)
		is.Equal(res.Agent, "billing")
		is.Equal(res.Text(), "Invoice 12 was paid on 3 March.")
		is.Equal(res.Usage.TotalTokens, 3*oneUsage.TotalTokens) // three model calls, two agents
		checkHistory(t, res.Messages)

		// The front desk was offered the handoff; billing runs with its own instructions and tools, and none to
		// hand off to.
		is.Equal(toolNames(frontModel.Requests()[0].Options), []string{"search", "handoff_to_billing"})
		breq := billingModel.Requests()
		is.Equal(len(breq), 2)
		is.Equal(breq[0].Options.Instructions, "You are billing.")
		is.Equal(toolNames(breq[0].Options), []string{"lookup_invoice"})
		// Billing sees the conversation so far, the handoff's result last.
		seen := breq[0].Messages
		is.Equal(seen[0].Text(), "was invoice 12 paid?")
		r := results(seen)["h1"]
		is.Equal(r.Error, "")
		is.Equal(string(r.Result), `{"handed_off_from":"frontdesk","handed_off_to":"billing","reason":"an invoice question"}`)
		// Its tool ran.
		is.Equal(string(results(breq[1].Messages)["b1"].Result), `{"number":12}`)

		// One run in the store: the steps of each agent stored under its name, the end recording the last agent.
		all, err := s.LoadAll(ctx, tenant, "c1")
		is.NoErr(err)
		is.Equal(types(all), "run_start,input,response,tool_results,response,tool_results,response,run_end")
		var agents []string
		for _, e := range all {
			is.Equal(e.RunID, all[0].RunID)
			agents = append(agents, e.Agent)
		}
		is.Equal(strings.Join(agents, ","), "frontdesk,frontdesk,frontdesk,frontdesk,billing,billing,billing,billing")
		is.Equal(runEnds(t, s, "c1"), []string{"billing"})
	})
}

func TestHandoffNextRunGoesToLastAgent(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billingModel := chattest.NewScript(
		chattest.Text("Billing here."),
		chattest.Text("Still billing."),
		chattest.Calls(chattest.Call("h2", "handoff_to_frontdesk", `{}`)),
	)
	billing := namedHost(t, "billing", billingModel, agent.Config{Store: s})
	frontModel := chattest.NewScript(
		chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`)),
		chattest.Text("Front desk again."),
	)
	front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	is.NoErr(billing.AddHandoffs(agent.Handoff{To: front, Description: "Hands back for anything but invoices."}))

	res, err := front.Run(ctx, inConv("c2", agent.Text("invoice?"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")

	// The next run, started on the front desk, goes to billing: the front desk's model is not called.
	res, err = front.Run(ctx, inConv("c2", agent.Text("and the other one?"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")
	is.Equal(res.Text(), "Still billing.")
	is.Equal(len(frontModel.Requests()), 1)
	seen := billingModel.Requests()[1].Messages
	is.Equal(seen[len(seen)-1].Text(), "and the other one?")
	is.Equal(billingModel.Requests()[1].Options.Instructions, "You are billing.")

	// Billing hands back; the run after that goes to the front desk, started on billing's host.
	res, err = front.Run(ctx, inConv("c2", agent.Text("thanks, something else"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "frontdesk")
	is.Equal(res.Text(), "Front desk again.")
	is.Equal(frontModel.Remaining(), 0)
	is.Equal(runEnds(t, s, "c2"), []string{"billing", "billing", "frontdesk"})
	// Billing's tools offered the way back.
	is.Equal(toolNames(billingModel.Requests()[0].Options), []string{"handoff_to_frontdesk"})
	is.Equal(billingModel.Requests()[0].Options.Tools[0].Description, "Hands back for anything but invoices.")

	// Started on billing, the conversation still goes to the front desk.
	frontModel.Reply(chattest.Text("Front desk, via billing's host."))
	res, err = billing.Run(ctx, inConv("c2", agent.Text("hello"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "frontdesk")
	is.Equal(res.Text(), "Front desk, via billing's host.")
}

func TestHandoffKeepsTheClaim(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	var front *agent.Host
	var during error
	billingModel := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		// While the run is handed over, another run on the conversation cannot start, on either host.
		_, during = front.Run(context.Background(), inConv("c3", agent.Text("me too"))...)
		return chattest.Text("billing answers"), nil
	})
	billing := namedHost(t, "billing", billingModel, agent.Config{Store: s})
	front = namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	res, err := front.Run(ctx, inConv("c3", agent.Text("invoice?"))...)
	is.NoErr(err)
	is.Equal(res.Text(), "billing answers")
	is.True(errors.Is(during, storage.ErrConversationBusy))
	is.Equal(runEnds(t, s, "c3"), []string{"billing"}) // the refused run stored nothing
}

func TestHandoffChainLimit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	// Ping hands to pong and pong back, more often than a run allows.
	pingModel := chattest.NewScript()
	pongModel := chattest.NewScript()
	for i := 0; i < 3; i++ {
		pingModel.Reply(chattest.Calls(chattest.Call("ping"+string(rune('0'+i)), "handoff_to_pong", `{}`)))
		pongModel.Reply(chattest.Calls(chattest.Call("pong"+string(rune('0'+i)), "handoff_to_ping", `{}`)))
	}
	pingModel.Reply(chattest.Text("ping gives up handing off"))
	pong := namedHost(t, "pong", pongModel, agent.Config{Store: s})
	ping := namedHost(t, "ping", pingModel, agent.Config{Store: s, Handoffs: []agent.Handoff{{To: pong}}})
	is.NoErr(pong.AddHandoffs(agent.Handoff{To: ping}))

	res, err := ping.Run(ctx, inConv("c4", agent.Text("go"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "ping")
	is.Equal(res.Text(), "ping gives up handing off")
	is.Equal(len(pongModel.Requests()), 2) // handed to pong twice: the third pong call never came
	// The fifth handoff call was answered with the limit, and ping went on.
	r := results(res.Messages)["ping2"]
	is.True(strings.Contains(r.Error, (&agent.HandoffLimitError{Agent: "pong", Limit: agent.MaxHandoffs}).Error()))
	checkHistory(t, res.Messages)
}

func TestHandoffToSelfRefused(t *testing.T) {
	is := is.New(t)
	s := memory.New()
	a := namedHost(t, "alpha", chattest.NewScript(), agent.Config{Store: s})
	is.True(errors.Is(a.AddHandoffs(agent.Handoff{To: a}), agent.ErrSelfHandoff))
	// Another host of the same name is the same agent: the conversation could not tell them apart.
	_, err := agent.NewHost(&namedAgent{name: "alpha"}, agent.Config{Client: chattest.NewScript(), Store: s, Handoffs: []agent.Handoff{{To: a}}})
	is.True(errors.Is(err, agent.ErrSelfHandoff))
	is.True(a.AddHandoffs(agent.Handoff{}) != nil)
	// Two agents whose names give the same tool name.
	b1 := namedHost(t, "Billing", chattest.NewScript(), agent.Config{Store: s})
	b2 := namedHost(t, "billing", chattest.NewScript(), agent.Config{Store: s})
	err = a.AddHandoffs(agent.Handoff{To: b1}, agent.Handoff{To: b2})
	is.True(err != nil && strings.Contains(err.Error(), "handoff_to_billing"))
	// A target without a store could not take a stored conversation over.
	err = a.AddHandoffs(agent.Handoff{To: namedHost(t, "gamma", chattest.NewScript(), agent.Config{})})
	is.True(err != nil && strings.Contains(err.Error(), "Config.Store"))
}

func TestHandoffNeedsConversation(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billing := namedHost(t, "billing", chattest.NewScript(), agent.Config{Store: s})
	model := chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`)), chattest.Text("done myself"))
	front := namedHost(t, "frontdesk", model, agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}}, echo("search"))
	res, err := front.Run(ctx, agent.Text("invoice?"))
	is.NoErr(err)
	is.Equal(res.Agent, "frontdesk")
	is.Equal(toolNames(model.Requests()[0].Options), []string{"search"})
	is.True(strings.HasPrefix(results(res.Messages)["h1"].Error, `unknown tool "handoff_to_billing"`))
}

func TestHandoffUnknownAgent(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billing := namedHost(t, "billing", chattest.NewScript(chattest.Text("billing")), agent.Config{Store: s})
	front := namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	_, err := front.Run(ctx, inConv("c5", agent.Text("invoice?"))...)
	is.NoErr(err)
	before, _ := s.LoadAll(ctx, tenant, "c5")

	// The front desk, configured again without billing, cannot send the conversation on.
	model := chattest.NewScript(chattest.Text("never"))
	again := namedHost(t, "frontdesk", model, agent.Config{Store: s})
	_, err = again.Run(ctx, inConv("c5", agent.Text("hello"))...)
	var ue *agent.UnknownAgentError
	is.True(errors.As(err, &ue))
	is.Equal(ue.Agent, "billing")
	is.Equal(ue.ConversationID, "c5")
	is.True(strings.Contains(err.Error(), `"billing"`))
	is.Equal(len(model.Requests()), 0)
	after, _ := s.LoadAll(ctx, tenant, "c5")
	is.Equal(len(after), len(before)) // nothing stored
	// The claim was released: a run that can reach billing goes on.
	billingModel := chattest.NewScript(chattest.Text("billing again"))
	billing2 := namedHost(t, "billing", billingModel, agent.Config{Store: s})
	res, err := billing2.Run(ctx, inConv("c5", agent.Text("hello"))...)
	is.NoErr(err)
	is.Equal(res.Text(), "billing again")
}

func TestHandoffStreaming(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billing := namedHost(t, "billing", chattest.NewScript(chattest.Text("Billing answers, streamed.")), agent.Config{Store: s})
	front := namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{"reason":"invoices"}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	var res agent.Result
	var text strings.Builder
	var handedOff bool
	for u, err := range front.RunStream(ctx, inConv("c6", agent.Text("invoice?"), agent.ResultInto(&res))...) {
		is.NoErr(err)
		for _, p := range u.Parts {
			switch p := p.(type) {
			case chat.Text:
				text.WriteString(p.Text)
			case chat.ToolResult:
				handedOff = handedOff || (p.CallID == "h1" && strings.Contains(string(p.Result), `"handed_off_to":"billing"`))
			}
		}
	}
	is.True(handedOff)
	is.Equal(text.String(), "Billing answers, streamed.")
	is.Equal(res.Agent, "billing")
	is.Equal(res.Text(), "Billing answers, streamed.")
	checkHistory(t, res.Messages)
	is.Equal(runEnds(t, s, "c6"), []string{"billing"})
	all, err := s.LoadAll(ctx, tenant, "c6")
	is.NoErr(err)
	is.Equal(types(all), "run_start,input,response,tool_results,response,run_end")
}

func TestHandoffOtherCallsNotRun(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billing := namedHost(t, "billing", chattest.NewScript(chattest.Text("ok")), agent.Config{Store: s})
	var ran bool
	front := namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(
		chattest.Call("s1", "search", `{}`),
		chattest.Call("h1", "handoff_to_billing", `{}`),
	)), agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}},
		tool("search", func(context.Context, json.RawMessage) (json.RawMessage, error) {
			ran = true
			return json.RawMessage(`1`), nil
		}))
	res, err := front.Run(ctx, inConv("c7", agent.Text("x"))...)
	is.NoErr(err)
	is.True(!ran)
	is.True(strings.Contains(results(res.Messages)["s1"].Error, "handed off to billing"))
	is.True(slices.ContainsFunc(res.New, func(m chat.Message) bool { return m.Text() == "ok" }))
}

func TestHandoffApprovalsAndModeGoOn(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	refund := needsApproval(echo("refund"))
	billingModel := chattest.NewScript(
		chattest.Calls(chattest.Call("r1", "refund", `{"invoice":12}`)),
		chattest.Text("Refunded invoice 12."),
	)
	billing := namedHost(t, "billing", billingModel, agent.Config{Store: s}, refund, readOnly(echo("lookup")))
	front := namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})

	// The run ends with billing's request pending; the answer, given to the front desk's host, reaches billing.
	res, err := front.Run(ctx, inConv("c8", agent.Text("refund invoice 12"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].Call.Name, "refund")
	res, err = front.Run(ctx, inConv("c8", agent.Approve(res.Pending[0].ID))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")
	is.Equal(res.Text(), "Refunded invoice 12.")
	is.Equal(string(results(res.Messages)["r1"].Result), `{"invoice":12}`)
	checkHistory(t, billingModel.Requests()[1].Messages)

	// Plan mode goes with the conversation: billing plans too, offered its read-only tools only.
	planModel := chattest.NewScript(chattest.Text("a plan"))
	billing2 := namedHost(t, "billing", planModel, agent.Config{Store: s}, refund, readOnly(echo("lookup")))
	front2 := namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h2", "handoff_to_billing", `{}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing2}}})
	res, err = front2.Run(ctx, inConv("c9", agent.Text("plan a refund"), agent.Mode(agent.ModePlan))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")
	is.Equal(res.Mode, agent.ModePlan)
	is.Equal(toolNames(planModel.Requests()[0].Options), []string{"lookup", agent.ExitPlanModeTool})
}

func TestHandoffSteering(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	var front *agent.Host
	var steerErr error
	billingModel := chattest.NewScript()
	calls := 0
	billingFn := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		calls++
		if calls == 1 {
			// Steering sent to the host the caller knows reaches the run now held by billing.
			steerErr = front.Steer(ctx, tenant, "c10", chat.UserText("it is invoice 13, not 12"))
			return chattest.Calls(chattest.Call("b1", "lookup", `{}`)), nil
		}
		return billingModel.Respond(ctx, msgs, opts)
	})
	billingModel.Reply(chattest.Text("Invoice 13 is paid."))
	billing := namedHost(t, "billing", billingFn, agent.Config{Store: s}, echo("lookup"))
	front = namedHost(t, "frontdesk", chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))),
		agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	res, err := front.Run(ctx, inConv("c10", agent.Text("was invoice 12 paid?"))...)
	is.NoErr(err)
	is.NoErr(steerErr)
	is.Equal(res.Text(), "Invoice 13 is paid.")
	seen := billingModel.Requests()[0].Messages
	is.Equal(seen[len(seen)-1].Text(), "it is invoice 13, not 12")
}

func TestHandoffAfterAnApprovedCall(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billingModel := chattest.NewScript(chattest.Text("billing takes it from here"))
	billing := namedHost(t, "billing", billingModel, agent.Config{Store: s})
	frontModel := chattest.NewScript(
		chattest.Calls(chattest.Call("x1", "close_ticket", `{"n":1}`)),
		chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`)),
	)
	front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}},
		needsApproval(echo("close_ticket")))
	res, err := front.Run(ctx, inConv("c11", agent.Text("close it"))...)
	is.NoErr(err)
	is.Equal(len(res.Pending), 1)
	// The answer runs the call, then the front desk hands off: billing reads a history a provider accepts.
	res, err = front.Run(ctx, inConv("c11", agent.Approve(res.Pending[0].ID))...)
	is.NoErr(err)
	is.Equal(res.Agent, "billing")
	is.Equal(res.Text(), "billing takes it from here")
	seen := billingModel.Requests()[0].Messages
	checkHistory(t, seen)
	is.Equal(string(results(seen)["x1"].Result), `{"n":1}`)
}

func TestHandoffBadArguments(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	billingModel := chattest.NewScript(chattest.Text("billing"))
	billing := namedHost(t, "billing", billingModel, agent.Config{Store: s})
	front := namedHost(t, "frontdesk", chattest.NewScript(
		chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{"why":"invoices"}`)),
		chattest.Text("front desk answers itself"),
	), agent.Config{Store: s, Handoffs: []agent.Handoff{{To: billing}}})
	res, err := front.Run(ctx, inConv("c12", agent.Text("x"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "frontdesk")
	is.Equal(res.Text(), "front desk answers itself")
	is.True(strings.Contains(results(res.Messages)["h1"].Error, "why"))
	is.Equal(len(billingModel.Requests()), 0)
	is.Equal(runEnds(t, s, "c12"), []string{""}) // never handed off: no agent recorded
}
