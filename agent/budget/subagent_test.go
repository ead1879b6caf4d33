package budget_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// specialist is the sub-agent.
type specialist struct{ agent.Agent }

func (a *specialist) Declare() {
	a.WithName("specialist")
	a.WithModel("openai", "gpt-4.1")
	a.WithMaxTokens(1000)
}

// A sub-agent's calls count against its caller's tenant, and its cost is in the caller's.
func TestSubAgentCountsAgainstTheCallersTenant(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	m := budget.New(&budget.Options{Store: store})
	sub, err := agent.NewHost(&specialist{}, agent.Config{Client: fixedUsage("gpt-4.1"), Meter: m})
	is.NoErr(err)
	caller := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		if msgs[len(msgs)-1].Role == chat.RoleTool {
			return fixedUsage("gpt-4.1-mini")(ctx, msgs, opts)
		}
		resp := chattest.Calls(chattest.Call("c1", "ask_specialist", `{"task":"look it up"}`))
		resp.Usage = chat.Usage{InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100}
		resp.Model = "gpt-4.1-mini"
		return resp, nil
	})
	front, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, agent.Config{Client: caller, Meter: m, Store: store,
		Tools: []toolset.Source{toolset.List{agent.AsTool(sub)}}})
	is.NoErr(err)

	res, err := front.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"), agent.Conversation("c"))
	is.NoErr(err)
	mini, full := int64(1000*400+100*1600), int64(1000*2000+100*8000)
	is.Equal(res.Cost, agent.Cost{Nanos: 2*mini + full, Currency: "USD"}) // the caller's two calls and the sub-agent's
	u, err := m.Usage(ctx, "t1", "c")
	is.NoErr(err)
	is.Equal(u.Windows[0].Spent.Tokens, int64(3*1100)) // the day of the caller's tenant holds all three
	is.Equal(u.Windows[0].Spent.Nanos, 2*mini+full)
	is.Equal(u.Windows[2].Spent.Tokens, int64(2*1100)) // the conversation window: the caller's own (the sub-agent runs without one)
}
