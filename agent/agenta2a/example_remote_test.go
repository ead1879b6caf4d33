package agenta2a_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// Call another agent over A2A as a tool: Dial reads its card, Tools offers it to a local agent, Register lets its
// questions reach the local conversation. Here the remote agent is one of our own, served on a test server.
func ExampleDial() {
	ctx := context.Background()
	// The remote side: the desk agent, served over A2A.
	remoteStore := memory.New()
	desk, err := agent.NewHost(&desk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Client:   chattest.FuncModel((&model{}).respond), // an offline model that echoes
		Store:    remoteStore,
	})
	if err != nil {
		panic(err)
	}
	served, err := agenta2a.New(desk, agenta2a.Options{Store: remoteStore, Authenticate: authenticate})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(served)
	defer srv.Close()

	// The local side: an agent that passes questions on to the remote one.
	remote, err := agenta2a.Dial(ctx, srv.URL, &agenta2a.RemoteOptions{
		Authorize: func(r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+tokenA) // the credentials the remote's card asks for
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	tools := remote.Tools()
	host, err := agent.NewHost(&front{}, agent.Config{
		Tools:  []toolset.Source{tools},
		Client: frontModel(tools[0].Name), // an offline model that calls the remote for "ask ..."
		Store:  memory.New(),
	})
	if err != nil {
		panic(err)
	}
	remote.Register(host)

	res, err := host.Run(ctx, agent.Text("ask hello"), agent.SettingsID("local"), agent.Conversation("c-1"))
	if err != nil {
		panic(err)
	}
	fmt.Println(tools[0].Name)
	fmt.Println(res.Text())
	// Output:
	// ask_desk
	// answer: "You said: hello"
}
