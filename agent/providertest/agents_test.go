package providertest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// The agent-level suite: the host's behaviour — the tool loop, calls in parallel, approvals, reasoning carried
// across tool rounds and across stored runs, a handoff to an agent on another provider — run over every
// provider's real client and SDK against a local server speaking the provider's wire format. Each case is one
// table row run on each provider; what a provider does not keep (Chat Completions has no reasoning to give
// back) is checked as absent.

// Desk answers questions about tickets; Billing takes over invoices.
type Desk struct{ agent.Agent }

func (a *Desk) Declare() {
	a.WithName("Desk")
	a.WithInstructions("You answer questions about support tickets.")
}

type Billing struct{ agent.Agent }

func (a *Billing) Declare() {
	a.WithName("Billing")
	a.WithInstructions("You answer questions about invoices.")
}

// desk is the tickets' back end: it records the calls that ran.
type desk struct {
	mu    sync.Mutex
	calls []string // "get_ticket 4711", "close_ticket 4711"
}

func (d *desk) ran() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.calls)
}

func (d *desk) tools() toolset.Source {
	schema := json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"}},"required":["number"],"additionalProperties":false}`)
	invoke := func(name string, result func(n int) string) func(context.Context, *toolset.Call) (json.RawMessage, error) {
		return func(_ context.Context, c *toolset.Call) (json.RawMessage, error) {
			var in struct{ Number int }
			if err := json.Unmarshal(c.Arguments, &in); err != nil {
				return nil, err
			}
			d.mu.Lock()
			d.calls = append(d.calls, fmt.Sprintf("%s %d", name, in.Number))
			d.mu.Unlock()
			return json.RawMessage(result(in.Number)), nil
		}
	}
	return toolset.List([]*toolset.Tool{
		{Name: "get_ticket", ID: "test.get_ticket", Description: "Reads a ticket by its number.", Schema: schema, ReadOnly: true,
			State: &toolset.State{}, Invoke: invoke("get_ticket", func(n int) string {
				return fmt.Sprintf(`{"number":%d,"status":"open","note":"toner-%d"}`, n, n)
			})},
		{Name: "close_ticket", ID: "test.close_ticket", Description: "Closes a ticket by its number.", Schema: schema, RequiresApproval: true,
			State: &toolset.State{}, Invoke: invoke("close_ticket", func(n int) string {
				return fmt.Sprintf(`{"number":%d,"closed":"closed-%d"}`, n, n)
			})},
	})
}

// sig returns a signature as the provider writes it: Gemini's are bytes, in base64 on the wire.
func sig(provider, s string) string {
	return base64.StdEncoding.EncodeToString([]byte(provider + "/" + s))
}

// tc is a test case of the suite, run on each wire.
type tc struct {
	name string
	run  func(t *testing.T, w wire)
}

func TestAgentsOnEveryProvider(t *testing.T) {
	cases := []tc{
		{"tool round keeps its reasoning", caseToolRound(false)},
		{"streamed tool round keeps its reasoning", caseToolRound(true)},
		{"parallel calls", caseParallelCalls},
		{"approval", caseApproval},
		{"stored conversation resumes with its reasoning", caseResume},
		{"handoff to another provider", caseHandoff(true)},
		{"handoff from another provider", caseHandoff(false)},
		{"plan mode", casePlanMode},
		{"sub-agent on another provider", caseSubAgent},
		{"compaction", caseCompaction},
	}
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, w) })
			}
		})
	}
}

// contains reports the texts body lacks.
func missing(body string, texts ...string) []string {
	var out []string
	for _, s := range texts {
		if !strings.Contains(body, s) {
			out = append(out, s)
		}
	}
	return out
}

func caseToolRound(stream bool) func(t *testing.T, w wire) {
	return func(t *testing.T, w wire) {
		is := is.New(t)
		thought, signature := "I should read ticket 4711 first.", sig(w.name, "round-1")
		client, requests := w.serve(t, []turn{
			{thought: thought, signature: signature, calls: []call{{id: "call_r1", name: "get_ticket", args: `{"number":4711}`}}},
			{text: "Ticket 4711 is open: the toner is out."},
		})
		d := &desk{}
		h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}})
		is.NoErr(err)
		var res *agent.Result
		if stream {
			res = &agent.Result{}
			var text strings.Builder
			kinds := map[string]int{}
			for u, err := range h.RunStream(t.Context(), agent.Text("Is ticket 4711 open?"), agent.ResultInto(res)) {
				is.NoErr(err)
				for _, p := range u.Parts {
					switch p := p.(type) {
					case chat.Text:
						text.WriteString(p.Text)
						kinds["text"]++
					case chat.Reasoning:
						kinds["reasoning"]++
					case chat.ToolCall:
						kinds["call"]++
					case chat.ToolResult:
						kinds["result"]++
					}
				}
			}
			is.Equal(text.String(), "Ticket 4711 is open: the toner is out.") // the deltas join into the answer
			is.True(kinds["text"] >= 2)                                       // streamed in pieces
			is.Equal(kinds["call"], 1)
			is.Equal(kinds["result"], 1)
			is.Equal(kinds["reasoning"] > 0, w.reasoning)
		} else {
			res, err = h.Run(t.Context(), agent.Text("Is ticket 4711 open?"))
			is.NoErr(err)
		}
		is.Equal(res.Text(), "Ticket 4711 is open: the toner is out.")
		is.Equal(d.ran(), []string{"get_ticket 4711"})
		is.Equal(res.FinishReason, chat.FinishStop)
		is.True(res.Usage.InputTokens > 0 && res.Usage.OutputTokens > 0)

		// The result went back to the model, after its call, with the reasoning that led to the call.
		reqs := requests()
		is.Equal(len(reqs), 2)
		want := []string{"toner-4711", "Is ticket 4711 open?"}
		if w.ids {
			want = append(want, "call_r1")
		}
		if w.reasoning {
			want = append(want, signature)
			is.True(strings.Index(reqs[1], signature) < strings.Index(reqs[1], "toner-4711"))
		}
		is.Equal(missing(reqs[1], want...), nil)
		if !w.reasoning {
			is.True(!strings.Contains(reqs[1], thought))
		}
		// The stored messages keep the reasoning for this provider only.
		var kept []chat.Reasoning
		for _, m := range res.Messages {
			for _, p := range m.Parts {
				if r, ok := p.(chat.Reasoning); ok {
					kept = append(kept, r)
				}
			}
		}
		is.Equal(len(kept) > 0, w.reasoning)
		for _, r := range kept {
			is.True(strings.HasPrefix(w.name, r.Provider))
		}
	}
}

func caseParallelCalls(t *testing.T, w wire) {
	is := is.New(t)
	client, requests := w.serve(t, []turn{
		{thought: "Both tickets.", signature: sig(w.name, "parallel"), calls: []call{
			{id: "call_p1", name: "get_ticket", args: `{"number":4711}`},
			{id: "call_p2", name: "get_ticket", args: `{"number":4712}`}}},
		{text: "Both are open."},
	})
	d := &desk{}
	h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}})
	is.NoErr(err)
	res, err := h.Run(t.Context(), agent.Text("Are 4711 and 4712 open?"))
	is.NoErr(err)
	is.Equal(res.Text(), "Both are open.")
	ran := d.ran()
	slices.Sort(ran)
	is.Equal(ran, []string{"get_ticket 4711", "get_ticket 4712"}) // each call ran once
	reqs := requests()
	is.Equal(len(reqs), 2)
	want := []string{"toner-4711", "toner-4712"}
	if w.ids {
		want = append(want, "call_p1", "call_p2")
	}
	is.Equal(missing(reqs[1], want...), nil) // both results went back in one request
	// Each result answers its own call.
	if w.ids {
		is.True(strings.Index(reqs[1], "toner-4711") < strings.Index(reqs[1], "toner-4712"))
	}
}

func caseApproval(t *testing.T, w wire) {
	is := is.New(t)
	client, requests := w.serve(t, []turn{
		{thought: "Closing needs approval.", signature: sig(w.name, "approval"), calls: []call{{id: "call_c1", name: "close_ticket", args: `{"number":4711}`}}},
		{text: "Ticket 4711 is closed."},
	})
	d := &desk{}
	h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}, Store: memory.New()})
	is.NoErr(err)
	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("c-approval")}
	res, err := h.Run(t.Context(), append(conv, agent.Text("Close ticket 4711."))...)
	is.NoErr(err)
	is.Equal(len(res.Pending), 1) // the run waits for approval
	is.Equal(len(d.ran()), 0)     // and ran nothing
	is.Equal(len(requests()), 1)
	id := res.Pending[0].ID

	res, err = h.Run(t.Context(), append(conv, agent.Approve(id))...)
	is.NoErr(err)
	is.Equal(res.Text(), "Ticket 4711 is closed.")
	is.Equal(d.ran(), []string{"close_ticket 4711"})
	reqs := requests()
	is.Equal(len(reqs), 2)
	is.Equal(missing(reqs[1], "closed-4711", "Close ticket 4711."), nil)
	is.True(!strings.Contains(reqs[1], id)) // the approval is the host's business, never the model's
	if w.reasoning {
		is.Equal(missing(reqs[1], sig(w.name, "approval")), nil) // the reasoning survived the wait
	}
}

func caseResume(t *testing.T, w wire) {
	is := is.New(t)
	signature := sig(w.name, "stored")
	client, requests := w.serve(t, []turn{
		{thought: "Read it first.", signature: signature, calls: []call{{id: "call_s1", name: "get_ticket", args: `{"number":4711}`}}},
		{text: "Ticket 4711 is open."},
		{text: "Ticket 4712 is open too."},
	})
	d := &desk{}
	store := memory.New()
	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("c-resume")}
	h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}, Store: store})
	is.NoErr(err)
	_, err = h.Run(t.Context(), append(conv, agent.Text("Is ticket 4711 open?"))...)
	is.NoErr(err)

	// Another host over the same store continues the conversation from what was stored.
	again, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}, Store: store})
	is.NoErr(err)
	res, err := again.Run(t.Context(), append(conv, agent.Text("And 4712?"))...)
	is.NoErr(err)
	is.Equal(res.Text(), "Ticket 4712 is open too.")
	reqs := requests()
	is.Equal(len(reqs), 3)
	want := []string{"Is ticket 4711 open?", "toner-4711", "Ticket 4711 is open.", "And 4712?"}
	if w.reasoning {
		want = append(want, signature)
	}
	is.Equal(missing(reqs[2], want...), nil)
}

// family is a provider's name before its API's: openai-responses is openai's.
func family(name string) string { f, _, _ := strings.Cut(name, "-"); return f }

// partner returns the next provider of the table of another family, one with reasoning when reasoning is set.
func partner(w wire, reasoning bool) wire {
	all := wires()
	i := slices.IndexFunc(all, func(x wire) bool { return x.name == w.name })
	for k := 1; k < len(all); k++ {
		o := all[(i+k)%len(all)]
		if family(o.name) != family(w.name) && (o.reasoning || !reasoning) {
			return o
		}
	}
	panic("no partner for " + w.name)
}

// caseHandoff runs the desk on one provider and hands off to billing on a provider of another family: the
// second reads the conversation without the first's reasoning, and answers. to says this provider is the
// desk's (the partner is billing's); otherwise this provider is billing's, after a desk whose provider reasons.
func caseHandoff(to bool) func(t *testing.T, w wire) {
	return func(t *testing.T, w wire) {
		is := is.New(t)
		from, into := w, partner(w, false)
		if !to {
			from, into = partner(w, true), w
		}
		thought, signature := "Invoices belong to billing.", sig(from.name, "handoff")
		deskClient, deskRequests := from.serve(t, []turn{
			{thought: thought, signature: signature, calls: []call{{id: "call_h1", name: "handoff_to_billing", args: `{"reason":"a question about invoice 12"}`}}},
		})
		billingClient, billingRequests := into.serve(t, []turn{{text: "Invoice 12 was paid on 3 March."}})
		store := memory.New()
		billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingClient, Store: store})
		is.NoErr(err)
		front, err := agent.NewHost(&Desk{}, agent.Config{Client: deskClient, Store: store,
			Handoffs: []agent.Handoff{{To: billing, Description: "Hands invoices to billing."}}})
		is.NoErr(err)
		res, err := front.Run(t.Context(), agent.SettingsID("tenant-1"), agent.Conversation("c-handoff"), agent.Text("Was invoice 12 paid?"))
		is.NoErr(err) // the other provider goes on without an error
		is.Equal(res.Agent, "Billing")
		is.Equal(res.Text(), "Invoice 12 was paid on 3 March.")
		is.Equal(len(deskRequests()), 1)
		reqs := billingRequests()
		is.Equal(len(reqs), 1)
		is.Equal(missing(reqs[0], "Was invoice 12 paid?"), nil)
		for _, secret := range []string{signature, thought} {
			is.True(!strings.Contains(reqs[0], secret)) // another provider's reasoning is left out
		}
	}
}

// casePlanMode runs in plan mode: only read-only tools are offered until the model's plan is approved, after
// which the run goes on in the default mode with every tool, and the reasoning of the planning rounds.
func casePlanMode(t *testing.T, w wire) {
	is := is.New(t)
	signature := sig(w.name, "plan")
	client, requests := w.serve(t, []turn{
		{thought: "Look before closing.", signature: signature, calls: []call{{id: "call_m1", name: "get_ticket", args: `{"number":4711}`}}},
		{calls: []call{{id: "call_m2", name: agent.ExitPlanModeTool, args: `{"plan":"Close ticket 4711."}`}}},
		{text: "Plan approved; ticket 4711 can be closed now."},
	})
	d := &desk{}
	h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{d.tools()}, Store: memory.New()})
	is.NoErr(err)
	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("c-plan")}
	res, err := h.Run(t.Context(), append(conv, agent.Mode(agent.ModePlan), agent.Text("Tidy up ticket 4711."))...)
	is.NoErr(err)
	is.Equal(res.Mode, agent.ModePlan)
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].Call.Name, agent.ExitPlanModeTool)
	is.Equal(d.ran(), []string{"get_ticket 4711"})

	res, err = h.Run(t.Context(), append(conv, agent.Mode(res.Mode), agent.Approve(res.Pending[0].ID))...)
	is.NoErr(err)
	is.Equal(res.Mode, "")
	is.Equal(res.Text(), "Plan approved; ticket 4711 can be closed now.")
	reqs := requests()
	is.Equal(len(reqs), 3)
	for _, r := range reqs[:2] {
		is.Equal(missing(r, "get_ticket", agent.ExitPlanModeTool), nil)
		is.True(!strings.Contains(r, "close_ticket")) // plan mode offers no tool that changes anything
	}
	want := []string{"close_ticket", "toner-4711"}
	if w.reasoning {
		want = append(want, signature)
	}
	is.Equal(missing(reqs[2], want...), nil)
}

// caseSubAgent has the desk on this provider ask billing, an agent on a provider of another family, as a tool:
// billing reads the task without the desk's reasoning; the desk reads billing's answer as the tool's result and
// gets its own reasoning back.
func caseSubAgent(t *testing.T, w wire) {
	is := is.New(t)
	other := partner(w, false)
	thought, signature := "Billing knows invoices.", sig(w.name, "subagent")
	deskClient, deskRequests := w.serve(t, []turn{
		{thought: thought, signature: signature, calls: []call{{id: "call_a1", name: "ask_billing", args: `{"task":"Has invoice 12 been paid?"}`}}},
		{text: "Yes: invoice 12 was paid on 3 March."},
	})
	billingClient, billingRequests := other.serve(t, []turn{{text: "Invoice 12 was paid on 3 March."}})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingClient})
	is.NoErr(err)
	front, err := agent.NewHost(&Desk{}, agent.Config{Client: deskClient,
		Tools: []toolset.Source{toolset.List{agent.AsTool(billing, agent.SubAgentDescription("Answers questions about invoices."))}}})
	is.NoErr(err)
	res, err := front.Run(t.Context(), agent.SettingsID("tenant-1"), agent.Text("Did you get my payment for invoice 12?"))
	is.NoErr(err)
	is.Equal(res.Text(), "Yes: invoice 12 was paid on 3 March.")
	breqs := billingRequests()
	is.Equal(len(breqs), 1)
	is.Equal(missing(breqs[0], "Has invoice 12 been paid?"), nil)
	is.True(!strings.Contains(breqs[0], signature) && !strings.Contains(breqs[0], thought))
	dreqs := deskRequests()
	is.Equal(len(dreqs), 2)
	want := []string{"ask_billing", "paid on 3 March"}
	if w.ids {
		want = append(want, "call_a1")
	}
	if w.reasoning {
		want = append(want, signature)
	}
	is.Equal(missing(dreqs[1], want...), nil)
}

// caseCompaction reads five long pages, one a round, under a context budget: the oldest results are cleared
// from later requests, which the provider still takes, each cleared result answering its call.
func caseCompaction(t *testing.T, w wire) {
	is := is.New(t)
	var script []turn
	for i := 1; i <= 5; i++ {
		script = append(script, turn{calls: []call{{id: fmt.Sprintf("call_page%d", i), name: "read_page", args: `{}`}}})
	}
	script = append(script, turn{text: "Read them all."})
	client, requests := w.serve(t, script)
	n := 0
	page := &toolset.Tool{Name: "read_page", Description: "Reads the next page.", ReadOnly: true, ID: "test.read_page",
		Schema: json.RawMessage(`{"type":"object","properties":{}}`), State: &toolset.State{},
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			n++
			return json.RawMessage(fmt.Sprintf(`"page-%d %s"`, n, strings.Repeat("lorem ipsum ", 400))), nil
		}}
	h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{toolset.List{page}},
		Inner: []chat.Middleware{agent.Compaction(agent.CompactionOptions{Budget: 4000, KeepResults: 2})}})
	is.NoErr(err)
	res, err := h.Run(t.Context(), agent.Text("Read the five pages."))
	is.NoErr(err)
	is.Equal(res.Text(), "Read them all.")
	reqs := requests()
	is.Equal(len(reqs), 6)
	last := reqs[5]
	is.Equal(missing(last, agent.ClearedResultText, "page-5", "page-4"), nil) // the newest kept in full
	is.True(!strings.Contains(last, "page-1 lorem"))                          // the oldest cleared
	if w.ids {
		for i := 1; i <= 5; i++ {
			is.Equal(missing(last, fmt.Sprintf("call_page%d", i)), nil) // every call still answered
		}
	}
}
