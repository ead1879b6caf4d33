package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// A request AskApproval leaves open is pending in the conversation; approved, its call runs once; rejected, the
// tool's OnRejected func hears of it. It needs a store and a free conversation.
func TestAskApproval(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	ran := 0
	var rejected []string
	tl := tool("act", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		ran++
		return json.RawMessage(`"done"`), nil
	})
	tl.RequiresApproval = true
	agent.OnRejected(tl, func(_ context.Context, c *toolset.Call, reason string) {
		rejected = append(rejected, c.ID+" "+c.Run.ConversationID+" "+reason)
	})
	h := host(script(say("ok"), say("ok")), agent.Config{Store: store}, tl)

	_, err := host(script(), agent.Config{}, tl).AskApproval(ctx, tenant, "c1", tc("x1", "act", `{}`), tl.ID)
	is.True(errors.Is(err, agent.ErrNoStore))
	_, err = h.AskApproval(ctx, "", "c1", tc("x1", "act", `{}`), tl.ID)
	is.True(errors.Is(err, agent.ErrNoSettingsID))

	req, err := h.AskApproval(ctx, tenant, "c1", tc("x1", "act", `{"n":1}`), tl.ID)
	is.NoErr(err)
	cs, err := h.LoadConversation(ctx, tenant, "c1")
	is.NoErr(err)
	is.Equal(len(cs.Pending), 1)
	is.Equal(cs.Pending[0].ID, req.ID)
	_, err = h.Run(ctx, agent.Approve(req.ID), agent.SettingsID(tenant), agent.Conversation("c1"))
	is.NoErr(err)
	is.Equal(ran, 1)

	req2, err := h.AskApproval(ctx, tenant, "c1", tc("x2", "act", `{"n":2}`), tl.ID)
	is.NoErr(err)
	_, err = h.Run(ctx, agent.Reject(req2.ID, "no"), agent.SettingsID(tenant), agent.Conversation("c1"))
	is.NoErr(err)
	is.Equal(ran, 1)
	is.Equal(rejected, []string{"x2 c1 no"})

	// A run holds the conversation: the request waits for it to end.
	c, err := store.Claim(ctx, tenant, "c1", "someone", time.Minute)
	is.NoErr(err)
	_, err = h.AskApproval(ctx, tenant, "c1", tc("x3", "act", `{}`), tl.ID)
	is.True(errors.Is(err, storage.ErrConversationBusy))
	is.NoErr(store.Release(ctx, c))
}

// InheritApprovals seeds a run with standing approvals, of a tool or of one call of it; a sub-agent's tool reads
// its caller's with CallerApprovals, a copy, as values.
func TestInheritApprovals(t *testing.T) {
	tests := []struct {
		name     string
		standing []agent.StandingApproval
		ran      int
	}{
		{"the tool", []agent.StandingApproval{{ToolID: "test.act"}}, 1},
		{"these arguments", []agent.StandingApproval{{ToolID: "test.act", Args: `{"n":1}`}}, 1},
		{"other arguments", []agent.StandingApproval{{ToolID: "test.act", Args: `{"n":2}`}}, 0},
		{"another tool", []agent.StandingApproval{{ToolID: "test.other"}}, 0},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ran := 0
			tl := needsApproval(tool("act", func(context.Context, json.RawMessage) (json.RawMessage, error) {
				ran++
				return json.RawMessage(`"done"`), nil
			}))
			h := host(script(call(tc("1", "act", `{"n":1}`)), say("ok")), agent.Config{}, tl)
			res, err := h.Run(context.Background(), agent.Text("go"), agent.InheritApprovals(tt.standing))
			is.NoErr(err)
			is.Equal(ran, tt.ran)
			is.Equal(len(res.Pending), 1-tt.ran) // what is not approved waits
		})
	}

	is := is.New(t)
	is.True(agent.CallerApprovals(context.Background()) == nil) // outside a tool with a delegate
	var seen []agent.StandingApproval
	delegate := host(script(say("done")), agent.Config{})
	sub := agent.AsTool(delegate)
	sub.Invoke = func(ctx context.Context, c *toolset.Call) (json.RawMessage, error) {
		seen = agent.CallerApprovals(ctx)
		return json.RawMessage(`"ok"`), nil
	}
	h := host(script(call(tc("1", sub.Name, `{"task":"x"}`)), say("ok")), agent.Config{}, sub)
	_, err := h.Run(context.Background(), agent.Text("go"), agent.InheritApprovals([]agent.StandingApproval{{ToolID: "test.act"}, {ToolID: "test.act"}}))
	is.NoErr(err)
	is.Equal(seen, []agent.StandingApproval{{ToolID: "test.act"}}) // the caller's, once each
}
