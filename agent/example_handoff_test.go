package agent_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/memory"
)

func ExampleHandoff() {
	ctx := context.Background()
	store := memory.New()

	billingModel := chattest.NewScript(
		chattest.Text("Invoice 12 was paid on 3 March."),
		chattest.Text("Invoice 13 is still open."),
	)
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingModel, Store: store})
	if err != nil {
		panic(err)
	}
	frontModel := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "handoff_to_billing", `{"reason":"a question about invoice 12"}`)),
	)
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{
		Client:   frontModel,
		Store:    store,
		Handoffs: []agent.Handoff{{To: billing, Description: "Hands the customer to billing for invoices and payments."}},
	})
	if err != nil {
		panic(err)
	}

	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("conv-1")}
	res, err := front.Run(ctx, append(conv, agent.Text("Did you get my payment for invoice 12?"))...)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Agent+":", res.Text())

	// The next run, started on the front desk again, goes to the agent that answered last.
	res, err = front.Run(ctx, append(conv, agent.Text("And invoice 13?"))...)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Agent+":", res.Text())
	fmt.Println("front desk model calls:", len(frontModel.Requests()))
	// Output:
	// Billing: Invoice 12 was paid on 3 March.
	// Billing: Invoice 13 is still open.
	// front desk model calls: 1
}
