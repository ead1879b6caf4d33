package riverqueue_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// Billing is the agent run in the background by TestManagerOnRiver.
type Billing struct{ agent.Agent }

func (a *Billing) Declare() {
	a.WithName("Billing")
	a.WithInstructions("You answer questions about invoices.")
}

// Frontdesk is its caller.
type Frontdesk struct{ agent.Agent }

func (a *Frontdesk) Declare() { a.WithName("Frontdesk"); a.WithInstructions("You help customers.") }

// TestManagerOnRiver runs the Manager of package background on the River queue, with real hosts: the caller
// starts Billing in the background and its run ends; Billing needs approval for a refund, which surfaces in the
// caller's conversation; the user approves it there, the answer reaches Billing through Resume and a new River
// job, the refund runs once, and Billing's answer reaches the caller, whose next run's model reads it.
func TestManagerOnRiver(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	var refunds atomic.Int32
	refund := &toolset.Tool{
		Name: "refund", Description: "Refunds an invoice.", ID: "test.refund", RequiresApproval: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"invoice":{"type":"integer"}},"required":["invoice"]}`),
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			refunds.Add(1)
			return json.RawMessage(`"refunded"`), nil
		},
		State: &toolset.State{},
	}
	billingModel := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		for _, m := range msgs {
			for _, p := range m.Parts {
				if _, ok := p.(chat.ToolResult); ok {
					return chattest.Text("refunded invoice 12"), nil
				}
			}
		}
		return chattest.Calls(chattest.Call("r1", "refund", `{"invoice":12}`)), nil
	})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingModel, Store: e.store,
		Tools: []toolset.Source{toolset.List{refund}}})
	is.NoErr(err)
	q := e.queue(t, "a")
	m := background.New(q, background.Options{Limit: 2, Deadline: time.Minute})
	var sawAnswer atomic.Bool
	frontModel := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		last := msgs[len(msgs)-1]
		if last.Role == chat.RoleUser && last.Text() == "go" {
			return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Refund invoice 12."}`)), nil
		}
		for _, msg := range msgs {
			if strings.Contains(msg.Text(), "refunded invoice 12") {
				sawAnswer.Store(true)
			}
		}
		return chattest.Text("ok"), nil
	})
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{Client: frontModel, Store: e.store,
		Tools: []toolset.Source{m.Tools(billing)}})
	is.NoErr(err)
	m.Register(front)
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Work(wctx) }()
	t.Cleanup(func() { cancel(); <-done })

	conv := []agent.RunOption{agent.SettingsID(tenant), agent.Conversation("conv-1")}
	res, err := front.Run(ctx, append(conv, agent.Text("go"))...)
	is.NoErr(err)
	var handle string
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if r, ok := p.(chat.ToolResult); ok && strings.Contains(string(r.Result), `"handle"`) {
				var v struct{ Handle string }
				is.NoErr(json.Unmarshal(r.Result, &v))
				handle = v.Handle
			}
		}
	}
	is.True(handle != "")

	waitState(t, q, tenant, handle, background.StatusWaiting, 30*time.Second)
	cs, err := front.LoadConversation(ctx, tenant, "conv-1")
	is.NoErr(err)
	is.Equal(len(cs.Pending), 1) // the sub-agent's request, surfaced in the caller's conversation
	is.Equal(refunds.Load(), int32(0))

	_, err = front.Run(ctx, append(conv, agent.Approve(cs.Pending[0].ID))...)
	is.NoErr(err)
	st := waitState(t, q, tenant, handle, background.StatusSucceeded, 30*time.Second)
	is.Equal(st.Result, "refunded invoice 12")
	is.Equal(refunds.Load(), int32(1))
	r := e.reports(t, tenant, "conv-1", handle)
	is.Equal(len(r), 2) // the wait for approval, then the answer
	is.True(strings.Contains(r[1], "succeeded"))

	_, err = front.Run(ctx, append(conv, agent.Text("news?"))...)
	is.NoErr(err)
	is.True(sawAnswer.Load())
}
