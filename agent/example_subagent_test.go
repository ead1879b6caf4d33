package agent_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// Billing knows the invoices; other agents ask it.
type Billing struct{ agent.Agent }

func (a *Billing) Declare() {
	a.WithName("Billing")
	a.WithInstructions("You answer questions about invoices.")
}

// Frontdesk talks to the customer and delegates what it cannot answer.
type Frontdesk struct{ agent.Agent }

func (a *Frontdesk) Declare() {
	a.WithName("Frontdesk")
	a.WithInstructions("You help customers; ask the billing agent about invoices.")
}

func ExampleAsTool() {
	billingModel := chattest.NewScript(chattest.Text("Invoice 12 was paid on 3 March."))
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingModel})
	if err != nil {
		panic(err)
	}

	frontModel := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "ask_billing", `{"task":"Has invoice 12 been paid?","context":"customer 881"}`)),
		chattest.Text("Yes: invoice 12 was paid on 3 March."),
	)
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{
		Client: frontModel,
		Tools:  []toolset.Source{toolset.List{agent.AsTool(billing, agent.SubAgentDescription("Answers questions about invoices and payments."))}},
	})
	if err != nil {
		panic(err)
	}

	res, err := front.Run(context.Background(), agent.Text("Did you get my payment for invoice 12?"), agent.SettingsID("tenant-1"))
	if err != nil {
		panic(err)
	}
	fmt.Println("billing was asked:", billingModel.Requests()[0].Messages[0].Text())
	for _, p := range frontModel.Requests()[1].Messages[2].Parts {
		fmt.Println("frontdesk read:", string(p.(chat.ToolResult).Result))
	}
	fmt.Println("answer:", res.Text())
	// Output:
	// billing was asked: Has invoice 12 been paid?
	//
	// Context:
	// customer 881
	// frontdesk read: "Invoice 12 was paid on 3 March."
	// answer: Yes: invoice 12 was paid on 3 March.
}
