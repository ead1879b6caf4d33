// Command background shows a background sub-agent from start to answer, offline, on the memory store: a
// frontdesk agent starts a billing agent in the background and answers the customer at once; the billing agent
// needs approval to refund, which the customer gives in the frontdesk's conversation; the billing agent goes on,
// and its answer joins the conversation, where the frontdesk's next run reads it.
//
//	go run ./examples/background
//
// With a durable queue and Postgres the same program survives restarts; the models here are scripted
// (agent/chattest), so it needs no provider.
package main

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// Billing refunds invoices, in the background.
type Billing struct{ agent.Agent }

func (a *Billing) Declare() { a.WithName("Billing"); a.WithInstructions("You refund invoices.") }

// Frontdesk talks to the customer.
type Frontdesk struct{ agent.Agent }

func (a *Frontdesk) Declare() { a.WithName("Frontdesk"); a.WithInstructions("You help customers.") }

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run plays the scenario and writes what happens to out.
func run(ctx context.Context, out io.Writer) error {
	store := memory.New()
	var refunded atomic.Value // the arguments the refund ran with
	refund := &toolset.Tool{Name: "refund", Description: "Refunds an invoice.", ID: "example.refund", RequiresApproval: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"invoice":{"type":"integer"}},"required":["invoice"]}`),
		Invoke: func(_ context.Context, c *toolset.Call) (json.RawMessage, error) {
			refunded.Store(string(c.Arguments))
			return json.RawMessage(`"refunded"`), nil
		}}
	billing, err := agent.NewHost(&Billing{}, agent.Config{Store: store, Tools: []toolset.Source{toolset.List{refund}},
		Client: chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			if msgs[len(msgs)-1].Role == chat.RoleTool {
				return chattest.Text("Invoice 12 is refunded."), nil
			}
			return chattest.Calls(chattest.Call("r1", "refund", `{"invoice":12}`)), nil
		})})
	if err != nil {
		return err
	}

	m := background.New(background.NewLocalQueue(store, ""), background.Options{Limit: 4, Deadline: time.Minute})
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{Store: store, Tools: []toolset.Source{m.Tools(billing)},
		Client: chattest.FuncModel(frontdesk)})
	if err != nil {
		return err
	}
	m.Register(front)
	work, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = m.Work(work) }()

	conv := []agent.RunOption{agent.SettingsID("tenant-42"), agent.Conversation("conv-1")}
	say := func(opts ...agent.RunOption) error {
		res, err := front.Run(ctx, append(conv, opts...)...)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "frontdesk: %s\n", res.Text())
		return nil
	}
	fmt.Fprintln(out, "customer: Please refund invoice 12.")
	if err := say(agent.Text("Please refund invoice 12.")); err != nil {
		return err
	}

	// The billing agent's request waits in the frontdesk's conversation, as any pending request.
	var pending []chat.ApprovalRequest
	if err := waitFor(ctx, func() bool {
		st, err := front.LoadConversation(ctx, "tenant-42", "conv-1")
		if err == nil {
			pending = st.Pending
		}
		return len(pending) > 0 && steered(ctx, store, 1)
	}); err != nil {
		return err
	}
	var shown struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(pending[0].Call.Arguments, &shown)
	fmt.Fprintf(out, "pending: %s wants %s(%s)\n", pending[0].Call.Name, shown.Tool, shown.Arguments)
	fmt.Fprintln(out, "customer: (approves)")
	if err := say(agent.Approve(pending[0].ID)); err != nil {
		return err
	}
	if err := waitFor(ctx, func() bool { return steered(ctx, store, 2) }); err != nil {
		return err
	}
	fmt.Fprintf(out, "billing ran refund(%s)\n", refunded.Load())
	fmt.Fprintln(out, "customer: Is it done?")
	return say(agent.Text("Is it done?"))
}

// frontdesk is the frontdesk's scripted model. A report may be taken in before any of its calls, so it reads the
// last tool result rather than the last message.
func frontdesk(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	switch msgs[len(msgs)-1].Text() {
	case "Please refund invoice 12.":
		return chattest.Calls(chattest.Call("c1", "start_billing", `{"task":"Refund invoice 12."}`)), nil
	case "Is it done?":
		for _, msg := range msgs {
			if strings.Contains(msg.Text(), "succeeded] ") {
				return chattest.Text("Yes: billing says invoice 12 is refunded."), nil
			}
		}
		return chattest.Text("Not yet."), nil
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != chat.RoleTool {
			continue
		}
		if strings.Contains(string(msgs[i].Parts[0].(chat.ToolResult).Result), `"approved":true`) {
			return chattest.Text("Thank you, billing goes on with the refund."), nil
		}
		break
	}
	return chattest.Text("I have asked billing to refund it; I will let you know."), nil
}

// steered reports whether conv-1 holds n reports of background runs.
func steered(ctx context.Context, store storage.Store, n int) bool {
	entries, _ := store.LoadAll(ctx, "tenant-42", "conv-1")
	got := 0
	for _, e := range entries {
		if e.Type == storage.EntrySteering {
			got++
		}
	}
	return got >= n
}

// waitFor polls cond for up to a minute.
func waitFor(ctx context.Context, cond func() bool) error {
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			return fmt.Errorf("waited a minute")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}
