package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// Support answers customers' questions about their tickets. It may search and read tickets; closing one waits
// for a person's approval.
type Support struct{ agent.Agent }

func (a *Support) Declare() {
	a.WithInstructions("You help customers with their support tickets.")
	a.WithModel("openai", "gpt-4.1-mini").Configurable()
	a.WithMaxIterations(10)
	agent.Use[*ticketsx.Tickets](a)
}

// TypeshiftDeclaration is what `go generate` writes for Support (here by hand).
func (a *Support) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Support", Uses: []agent.UseDeclaration{{Index: 0}}}
}

// model is a function model: each call returns the next response of the script, and shows what it was sent.
type model []func(msgs []chat.Message) chat.Message

func (m *model) Respond(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	next := (*m)[0]
	*m = (*m)[1:]
	return &chat.Response{Messages: []chat.Message{next(msgs)}}, nil
}

func (m *model) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := m.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		yield(chat.Update{Role: chat.RoleAssistant, Parts: resp.Messages[0].Parts}, nil)
	}
}

func calls(cs ...chat.ToolCall) func([]chat.Message) chat.Message {
	return func([]chat.Message) chat.Message {
		parts := make([]chat.Part, len(cs))
		for i, c := range cs {
			parts[i] = c
		}
		return chat.Message{Role: chat.RoleAssistant, Parts: parts}
	}
}

// answer reports the results the model was sent, as a model would summarise them.
func answer(msgs []chat.Message) chat.Message {
	text := ""
	for _, p := range msgs[len(msgs)-1].Parts {
		if r, ok := p.(chat.ToolResult); ok {
			text += fmt.Sprintf("%s -> %s%s\n", r.CallID, r.Result, r.Error)
		}
	}
	return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}
}

func ticketsToolset() *ticketsx.Tickets {
	return &ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}
}

// A run: the model calls a tool, reads its result and answers.
func Example() {
	m := &model{
		calls(chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)}),
		answer,
	}
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{ticketsToolset()},
		Client:   m,
	})
	if err != nil {
		panic(err)
	}
	res, err := host.Run(context.Background(), agent.Text("Is ticket 4711 open?"))
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Text())
	for _, msg := range res.Messages {
		fmt.Println(strings.TrimSpace(string(msg.Role) + " " + msg.AuthorName))
	}
	// Output:
	// call_1 -> {"number":4711,"title":"Printer prints blank pages","status":"open","opened":"2026-03-12T09:30:00Z","tags":["hardware"]}
	// user
	// assistant Support
	// tool Support
	// assistant Support
}

// A call that needs approval ends the run with a pending request; the next run answers it.
func Example_approval() {
	m := &model{
		calls(chat.ToolCall{ID: "call_1", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711,"reason":"Fixed."}`)}),
		answer,
	}
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: m})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	res, err := host.Run(ctx, agent.Text("Please close ticket 4711."))
	if err != nil {
		panic(err)
	}
	for _, p := range res.Pending {
		fmt.Printf("approve %s(%s)?\n", p.Call.Name, p.Call.Arguments)
	}

	// The person approves; the history travels with the next run.
	id := res.Pending[0].ID
	res, err = host.Run(ctx, agent.Messages(res.Messages), agent.Approve(id))
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Text())

	// Answering the same request again is an error: it is closed. So is an id no request has.
	_, err = host.Run(ctx, agent.Messages(res.Messages), agent.Approve(id))
	var ae *agent.ApprovalError
	fmt.Println(errors.As(err, &ae), ae.Reason)
	_, err = host.Run(ctx, agent.Messages(res.Messages), agent.Approve("approval_0000"))
	fmt.Println(err)
	// Output:
	// approve close_ticket({"number":4711,"reason":"Fixed."})?
	// call_1 -> null
	// true the request is already closed
	// approval answer for "approval_0000": no request has this id
}

// Plan mode offers only read-only tools and exit_plan_mode; approving the plan leaves it.
func Example_planMode() {
	m := &model{
		func(msgs []chat.Message) chat.Message {
			return calls(chat.ToolCall{ID: "call_1", Name: agent.ExitPlanModeTool, Arguments: json.RawMessage(`{"plan":"Close 4711."}`)})(msgs)
		},
		answer,
	}
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: m})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	res, err := host.Run(ctx, agent.Text("Tidy up my tickets."), agent.Mode(agent.ModePlan))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Mode, res.Pending[0].Call.Name)

	res, err = host.Run(ctx, agent.Messages(res.Messages), agent.Mode(res.Mode), agent.Approve(res.Pending[0].ID))
	if err != nil {
		panic(err)
	}
	fmt.Printf("mode %q\n", res.Mode)
	// Output:
	// plan exit_plan_mode
	// mode ""
}

// Settings layers: the tenant's stored settings, then the run's.
func Example_settings() {
	var seen []string
	recorder := &recordingModel{seen: &seen}
	stored := agent.SettingsFunc(func(_ context.Context, settingsID, kind string) (json.RawMessage, error) {
		if settingsID == "tenant-42" {
			return json.RawMessage(`{"model":"gpt-4.1","tools":{"search_tickets":{"limit":5}}}`), nil
		}
		return nil, nil
	})
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: recorder, Settings: stored})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, opts := range [][]agent.RunOption{
		{agent.Text("hi")},
		{agent.Text("hi"), agent.SettingsID("tenant-42")},
		{agent.Text("hi"), agent.SettingsID("tenant-42"), agent.RunSettings(json.RawMessage(`{"max_iterations":3}`))},
	} {
		if _, err := host.Run(ctx, opts...); err != nil {
			panic(err)
		}
	}
	_, err = host.Run(ctx, agent.Text("hi"), agent.RunSettings(json.RawMessage(`{"temperature":1.5}`)))
	fmt.Println(seen)
	fmt.Println(err)
	// Output:
	// [gpt-4.1-mini gpt-4.1 gpt-4.1]
	// run settings: "temperature": the agent does not let settings change this option
}

// recordingModel records the model each call asks for and answers "ok".
type recordingModel struct{ seen *[]string }

func (r *recordingModel) Respond(_ context.Context, _ []chat.Message, o *chat.Options) (*chat.Response, error) {
	*r.seen = append(*r.seen, o.Model)
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "ok"}}}}}, nil
}

func (r *recordingModel) Stream(ctx context.Context, msgs []chat.Message, o *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, _ := r.Respond(ctx, msgs, o)
		yield(chat.Update{Role: chat.RoleAssistant, Parts: resp.Messages[0].Parts}, nil)
	}
}
