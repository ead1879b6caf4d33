package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// namedAgent is an agent without toolset uses whose name the test chooses.
type namedAgent struct {
	agent.Agent
	name string
}

func (a *namedAgent) Declare() {
	a.WithName(a.name)
	a.WithInstructions("You are " + a.name + ".")
}

// namedHost returns a host for an agent called name, answering with model and offering tools.
func namedHost(t *testing.T, name string, model chat.Client, cfg agent.Config, tools ...*toolset.Tool) *agent.Host {
	t.Helper()
	cfg.Client = model
	if len(tools) > 0 {
		cfg.Tools = append(cfg.Tools, toolset.List(tools))
	}
	h, err := agent.NewHost(&namedAgent{name: name}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// toolNames returns the names of the tools a request offered.
func toolNames(o *chat.Options) []string {
	var out []string
	for _, t := range o.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestAsToolDelegates(t *testing.T) {
	is := is.New(t)
	helperModel := chattest.NewScript(&chat.Response{
		Messages:     []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "ticket 7 is open"}}}},
		Usage:        chat.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110},
		FinishReason: chat.FinishStop,
	})
	helper := namedHost(t, "Researcher", helperModel, agent.Config{})

	mainModel := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "ask_researcher", `{"task":"find ticket 7","context":"the user is Ann"}`)),
		chattest.Text("It is open."),
	)
	main := namedHost(t, "Support", mainModel, agent.Config{}, agent.AsTool(helper))

	res, err := main.Run(context.Background(), agent.Text("Is ticket 7 open?"))
	is.NoErr(err)
	is.Equal(res.Text(), "It is open.")

	// The helper was given the task and the context, and nothing of the caller's conversation.
	hreq := helperModel.Requests()
	is.Equal(len(hreq), 1)
	is.Equal(len(hreq[0].Messages), 1)
	in := hreq[0].Messages[0].Text()
	is.True(strings.HasPrefix(in, "find ticket 7"))
	is.True(strings.Contains(in, "the user is Ann"))

	// Its answer reached the caller's model as the call's result.
	mreq := mainModel.Requests()
	r := results(mreq[1].Messages)["c1"]
	is.Equal(r.Error, "")
	is.Equal(string(r.Result), `"ticket 7 is open"`)

	// Its usage is part of the caller's.
	is.True(res.Usage.InputTokens >= 100)
	is.True(res.Usage.TotalTokens >= 110)

	// The tool describes itself.
	tl := agent.AsTool(helper)
	is.Equal(tl.Name, "ask_researcher")
	is.True(strings.Contains(tl.Description, "Researcher"))
	is.True(tl.ReadOnly)
	is.Equal(tl.State.Delegate, helper)
	var schema struct {
		Required []string `json:"required"`
	}
	is.NoErr(json.Unmarshal(tl.Schema, &schema))
	is.Equal(schema.Required, []string{"task"})
}

func TestAsToolUsageFolded(t *testing.T) {
	is := is.New(t)
	usage := chat.Usage{InputTokens: 1000, OutputTokens: 1, TotalTokens: 1001}
	helperModel := chattest.NewScript(&chat.Response{Messages: chattest.Text("done").Messages, Usage: usage})
	helper := namedHost(t, "helper", helperModel, agent.Config{})
	mainResp := func(r *chat.Response) *chat.Response { r.Usage = chat.Usage{InputTokens: 1, TotalTokens: 1}; return r }
	mainModel := chattest.NewScript(
		mainResp(chattest.Calls(chattest.Call("c1", "ask_helper", `{"task":"x"}`))),
		mainResp(chattest.Text("ok")),
	)
	main := namedHost(t, "main", mainModel, agent.Config{}, agent.AsTool(helper))
	res, err := main.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(res.Usage, chat.Usage{InputTokens: 1002, OutputTokens: 1, TotalTokens: 1003}) // two own calls and the helper's
}

func TestAsToolPropagatesSettingsIDAndMode(t *testing.T) {
	tests := []struct {
		mode      string
		wantTools string // the tools the helper's model is offered
	}{
		{agent.ModeDefault, "look,write"},
		{agent.ModePlan, "look,exit_plan_mode"},
		{agent.ModeAuto, "look,write"},
	}
	for _, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			is := is.New(t)
			var mu sync.Mutex
			var seen []toolset.Run
			look := readOnly(tool("look", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`"seen"`), nil
			}))
			look.Invoke = func(_ context.Context, c *toolset.Call) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, *c.Run)
				mu.Unlock()
				return json.RawMessage(`"seen"`), nil
			}
			helperModel := chattest.NewScript(chattest.Calls(chattest.Call("h1", "look", `{}`)), chattest.Text("looked"))
			helper := namedHost(t, "helper", helperModel, agent.Config{}, look, echo("write"))

			mainModel := chattest.NewScript(chattest.Calls(chattest.Call("c1", "ask_helper", `{"task":"look"}`)), chattest.Text("ok"))
			main := namedHost(t, "main", mainModel, agent.Config{}, agent.AsTool(helper))
			res, err := main.Run(context.Background(), agent.Text("go"), agent.SettingsID("tenant-9"), agent.Mode(tt.mode))
			is.NoErr(err)
			is.Equal(res.Text(), "ok")

			// The caller offers the sub-agent in every mode: it changes nothing in plan mode.
			is.True(strings.Contains(joined(toolNames(mainModel.Requests()[0].Options)), "ask_helper"))
			is.Equal(joined(toolNames(helperModel.Requests()[0].Options)), tt.wantTools)
			is.Equal(len(seen), 1)
			is.Equal(seen[0].SettingsID, "tenant-9")
			is.Equal(seen[0].Mode, tt.mode)
			is.Equal(seen[0].Agent, "helper")
		})
	}
}

// writeTool is a tool that needs approval and records its calls.
func writeTool(calls *int) *toolset.Tool {
	return needsApproval(withID(tool("write", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		*calls++
		return json.RawMessage(`"written"`), nil
	}), "test.write"))
}

func TestAsToolPlanModeReturnsThePlan(t *testing.T) {
	is := is.New(t)
	helperModel := chattest.NewScript(chattest.Calls(chattest.Call("h1", agent.ExitPlanModeTool, `{"plan":"1. read the invoice\n2. refund it"}`)))
	helper := namedHost(t, "helper", helperModel, agent.Config{})
	mainModel := chattest.NewScript(chattest.Calls(chattest.Call("c1", "ask_helper", `{"task":"plan the refund"}`)), chattest.Text("here is the plan"))
	main := namedHost(t, "main", mainModel, agent.Config{}, agent.AsTool(helper))
	res, err := main.Run(context.Background(), agent.Text("refund"), agent.Mode(agent.ModePlan))
	is.NoErr(err)
	is.Equal(res.Text(), "here is the plan")
	r := results(mainModel.Requests()[1].Messages)["c1"]
	is.Equal(r.Error, "")
	var text string
	is.NoErr(json.Unmarshal(r.Result, &text))
	is.Equal(text, "helper is in plan mode, changed nothing, and proposes this plan:\n1. read the invoice\n2. refund it")
}

func TestAsToolStandingApprovals(t *testing.T) {
	is := is.New(t)
	var mainWrites, helperWrites int
	helperModel := chattest.NewScript(
		chattest.Calls(chattest.Call("h1", "write", `{"x":1}`)), chattest.Text("helper wrote"), // with the standing approval
		chattest.Calls(chattest.Call("h2", "write", `{"x":2}`)), // without it: waits for approval
	)
	helper := namedHost(t, "helper", helperModel, agent.Config{}, writeTool(&helperWrites))

	mainModel := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "write", `{"x":0}`)), // run 1: waits for approval
		chattest.Text("wrote"), // run 2: after the approval
		chattest.Calls(chattest.Call("c2", "ask_helper", `{"task":"write more"}`)), // run 3
		chattest.Text("done"),
	)
	main := namedHost(t, "main", mainModel, agent.Config{}, writeTool(&mainWrites), agent.AsTool(helper))
	ctx := context.Background()

	res, err := main.Run(ctx, agent.Text("write"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 1)
	res, err = main.Run(ctx, agent.Messages(res.Messages), agent.ApproveAlways(res.Pending[0].ID, chat.ForTool))
	is.NoErr(err)
	is.Equal(mainWrites, 1)
	res, err = main.Run(ctx, agent.Messages(res.Messages), agent.Text("now delegate"))
	is.NoErr(err)
	is.Equal(res.Text(), "done")
	is.Equal(helperWrites, 1) // the caller's standing approval held below it
	is.Equal(results(mainModel.Requests()[3].Messages)["c2"].Result, json.RawMessage(`"helper wrote"`))

	// A fresh conversation has no standing approval: the helper stops, and the caller's model is told why.
	mainModel.Reply(chattest.Calls(chattest.Call("c3", "ask_helper", `{"task":"write again"}`))).Reply(chattest.Text("could not"))
	res, err = main.Run(ctx, agent.Text("delegate"))
	is.NoErr(err)
	is.Equal(helperWrites, 1)
	r := results(mainModel.Requests()[5].Messages)["c3"]
	is.True(strings.Contains(r.Error, "needs approval to call write"))
}

func TestAsToolDepthLimit(t *testing.T) {
	tests := []struct {
		max  int
		runs int // runs of the agent, the first included
	}{
		{0, agent.DefaultMaxDepth + 1},
		{1, 2},
		{2, 3},
	}
	for _, tt := range tests {
		is := is.New(t)
		var mu sync.Mutex
		calls := 0
		// The model delegates to itself until a call comes back, then repeats what came back.
		model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			mu.Lock()
			calls++
			mu.Unlock()
			last := msgs[len(msgs)-1]
			if last.Role != chat.RoleTool {
				return chattest.Calls(chattest.Call("c", "ask_self", `{"task":"again"}`)), nil
			}
			r := last.Parts[0].(chat.ToolResult)
			return chattest.Text("got " + r.Error + string(r.Result)), nil
		})
		var self *toolset.Tool
		src := toolset.SourceFunc(func(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
			return []*toolset.Tool{self}, nil
		})
		h := namedHost(t, "self", model, agent.Config{Tools: []toolset.Source{src}})
		self = agent.AsTool(h, agent.SubAgentMaxDepth(tt.max))
		res, err := h.Run(context.Background(), agent.Text("start"))
		is.NoErr(err)
		is.Equal(calls, 2*tt.runs)
		limit := tt.max
		if limit == 0 {
			limit = agent.DefaultMaxDepth
		}
		is.True(strings.Contains(res.Text(), fmt.Sprintf("nested %d deep", limit)))
	}
}

func TestAsToolFailingAgentReachesModel(t *testing.T) {
	is := is.New(t)
	helperModel := chattest.NewScript().Fail(errors.New("provider unavailable"))
	helper := namedHost(t, "helper", helperModel, agent.Config{})
	mainModel := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "ask_helper", `{"task":"x"}`), chattest.Call("c2", "ask_helper", `{"context":"no task"}`)),
		chattest.Text("sorry"),
	)
	main := namedHost(t, "main", mainModel, agent.Config{}, agent.AsTool(helper))
	res, err := main.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(res.Text(), "sorry")
	rs := results(mainModel.Requests()[1].Messages)
	is.True(strings.Contains(rs["c1"].Error, "agent helper failed"))
	is.True(strings.Contains(rs["c1"].Error, "provider unavailable"))
	is.Equal(rs["c2"].Error, `missing required property "task"`)
}

func TestAsToolCopiesShareDelegate(t *testing.T) {
	is := is.New(t)
	helperModel := chattest.NewScript(chattest.Text("from the helper"))
	helper := namedHost(t, "helper", helperModel, agent.Config{})
	tl := agent.AsTool(helper, agent.SubAgentName("consult"), agent.SubAgentDescription("Knows billing."))
	is.Equal(tl.Name, "consult")
	is.Equal(tl.Description, "Knows billing.")

	src := toolset.Rename(toolset.Prefix(toolset.List{tl}, "team"), map[string]string{"team_consult": "billing_expert"})
	ts, err := src.Tools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(len(ts), 1)
	is.Equal(ts[0].Name, "billing_expert")
	is.Equal(ts[0].State, tl.State)
	d, ok := ts[0].State.Delegate.(*agent.Host)
	is.True(ok)
	is.Equal(d, helper)

	// The renamed copy runs the delegate.
	mainModel := chattest.NewScript(chattest.Calls(chattest.Call("c1", "billing_expert", `{"task":"x"}`)), chattest.Text("ok"))
	main := namedHost(t, "main", mainModel, agent.Config{Tools: []toolset.Source{src}})
	_, err = main.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(string(results(mainModel.Requests()[1].Messages)["c1"].Result), `"from the helper"`)
}

func TestSubAgents(t *testing.T) {
	is := is.New(t)
	a := namedHost(t, "Billing", chattest.NewScript(), agent.Config{})
	b := namedHost(t, "Shipping", chattest.NewScript(), agent.Config{})
	ts, err := agent.SubAgents(a, b).Tools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(len(ts), 2)
	is.Equal(ts[0].Name, "ask_billing")
	is.Equal(ts[0].State.Delegate, a)
	is.Equal(ts[1].Name, "ask_shipping")
	is.Equal(ts[1].State.Delegate, b)
}

func TestAsToolNames(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]string{
		"Billing":       "ask_billing",
		"SupportDesk":   "ask_support_desk",
		"sales-team v2": "ask_sales_team_v2",
		"!!!":           "ask",
	} {
		h := namedHost(t, name, chattest.NewScript(), agent.Config{})
		got := agent.AsTool(h).Name
		is.True(toolset.ValidName(got))
		is.Equal(got, want)
	}
}

// concurrentAgent runs the calls of one step at once.
type concurrentAgent struct{ agent.Agent }

func (a *concurrentAgent) Declare() {
	a.WithName("dispatcher")
	a.WithConcurrentTools()
}

func TestAsToolConcurrentCalls(t *testing.T) {
	is := is.New(t)
	helperModel := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		return &chat.Response{
			Messages: chattest.Text("did " + msgs[0].Text()).Messages,
			Usage:    chat.Usage{InputTokens: 100, OutputTokens: 1, TotalTokens: 101},
		}, nil
	})
	helper := namedHost(t, "helper", helperModel, agent.Config{})
	calls := make([]chat.ToolCall, 6)
	for i := range calls {
		calls[i] = chattest.Call(fmt.Sprint("c", i), "ask_helper", fmt.Sprintf(`{"task":"job %d"}`, i))
	}
	mainModel := chattest.NewScript(chattest.Calls(calls...), chattest.Text("all done"))
	main, err := agent.NewHost(&concurrentAgent{}, agent.Config{Client: mainModel, Tools: []toolset.Source{agent.SubAgents(helper)}})
	is.NoErr(err)
	res, err := main.Run(context.Background(), agent.Text("do six jobs"))
	is.NoErr(err)
	rs := results(mainModel.Requests()[1].Messages)
	for i := range calls {
		is.Equal(string(rs[fmt.Sprint("c", i)].Result), fmt.Sprintf(`"did job %d"`, i))
	}
	is.True(res.Usage.InputTokens >= 600) // each helper's 100, besides the caller's own
}

func TestAsToolBoundByToolTimeout(t *testing.T) {
	is := is.New(t)
	blocking := chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
		<-ctx.Done() // a provider that does not answer
		return nil, ctx.Err()
	})
	helper := namedHost(t, "helper", blocking, agent.Config{})
	mainModel := chattest.NewScript(chattest.Calls(chattest.Call("c1", "ask_helper", `{"task":"x"}`)), chattest.Text("gave up"))
	main := namedHost(t, "main", mainModel, agent.Config{ToolTimeout: 20 * time.Millisecond}, agent.AsTool(helper))
	res, err := main.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(res.Text(), "gave up")
	// Either the host abandons the call at the timeout, or the delegate's run, ended by it, returns first.
	msg := results(mainModel.Requests()[1].Messages)["c1"].Error
	is.True(strings.Contains(msg, "did not finish within 20ms") || strings.Contains(msg, "context deadline exceeded"))
}
