package agenta2a_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// Serve an agent over A2A beside the application's other routes, then call it with the official Go SDK's client:
// the client discovers the agent from its card and sends it a task.
func Example() {
	ctx := context.Background()
	store := memory.New()
	host, err := agent.NewHost(&desk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Client:   chattest.FuncModel((&model{}).respond), // an offline model that echoes
		Store:    store,
	})
	if err != nil {
		panic(err)
	}
	h, err := agenta2a.New(host, agenta2a.Options{Store: store, Authenticate: authenticate})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/a2a/", http.StripPrefix("/a2a", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	card, err := agentcard.NewResolver(nil).Resolve(ctx, srv.URL+"/a2a")
	if err != nil {
		panic(err)
	}
	client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(&http.Client{Transport: bearer{tokenA}}))
	if err != nil {
		panic(err)
	}
	res, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hello"})})
	if err != nil {
		panic(err)
	}
	task := res.(*a2a.Task)
	fmt.Println(card.Name, card.Skills[0].Name)
	fmt.Println(task.Status.State, task.Artifacts[0].Parts[0].(a2a.TextPart).Text)
	// Output:
	// Desk close_ticket
	// completed You said: hello
}
