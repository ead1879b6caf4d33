package background_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// A frontdesk agent starts the billing agent in the background and answers the customer at once; the billing
// agent's answer joins the conversation when it is done, and the conversation's next run reads it.
func ExampleManager() {
	ctx := context.Background()
	store := memory.New() // or postgres.New(ctx, pool, nil), with a durable queue

	// Billing takes its time: it answers once the frontdesk has answered the customer.
	answered := make(chan struct{})
	billingModel := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		<-answered
		return chattest.Text("Invoice 12 was paid on 3 March."), nil
	})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Store: store, Client: billingModel})
	if err != nil {
		panic(err)
	}

	m := background.New(background.NewLocalQueue(store, ""), background.Options{Limit: 4, Deadline: 10 * time.Minute})
	frontModel := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		switch last := msgs[len(msgs)-1]; {
		case last.Text() == "Did you get my payment for invoice 12?":
			return chattest.Calls(chattest.Call("c1", "start_billing", `{"task":"Has invoice 12 been paid?"}`)), nil
		case last.Role == chat.RoleTool:
			return chattest.Text("I asked billing; I will tell you as soon as I know."), nil
		}
		for _, msg := range msgs {
			if strings.Contains(msg.Text(), "succeeded] ") {
				return chattest.Text("Billing says invoice 12 was paid on 3 March."), nil
			}
		}
		return chattest.Text("No news yet."), nil
	})
	front, err := agent.NewHost(&Frontdesk{}, agent.Config{Store: store, Client: frontModel,
		Tools: []toolset.Source{m.Tools(billing)}})
	if err != nil {
		panic(err)
	}
	m.Register(front)
	work, stop := context.WithCancel(ctx)
	defer stop()
	go m.Work(work)

	conv := []agent.RunOption{agent.SettingsID("tenant-42"), agent.Conversation("conv-1")}
	res, err := front.Run(ctx, append(conv, agent.Text("Did you get my payment for invoice 12?"))...)
	if err != nil {
		panic(err)
	}
	fmt.Println("frontdesk:", res.Text())
	close(answered)

	// Wait for the report to join the conversation (an application would watch it, or just let the next run
	// read it).
	for !reported(ctx, store) {
		time.Sleep(time.Millisecond)
	}
	res, err = front.Run(ctx, append(conv, agent.Text("Any news?"))...)
	if err != nil {
		panic(err)
	}
	fmt.Println("frontdesk:", res.Text())
	// Output:
	// frontdesk: I asked billing; I will tell you as soon as I know.
	// frontdesk: Billing says invoice 12 was paid on 3 March.
}

// reported tells whether a background run's report is stored in conv-1.
func reported(ctx context.Context, store storage.Store) bool {
	entries, _ := store.LoadAll(ctx, "tenant-42", "conv-1")
	for _, e := range entries {
		if e.Type == storage.EntrySteering {
			return true
		}
	}
	return false
}
