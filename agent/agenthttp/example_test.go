package agenthttp_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// Mount the handler under /api/ of a mux, with the application's own authentication, and start a conversation.
func Example() {
	store := memory.New()
	host, err := agent.NewHost(&desk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Client:   chattest.NewScript(chattest.Text("Hello! How can I help?")),
		Store:    store,
	})
	if err != nil {
		log.Fatal(err)
	}
	api, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{
		Store: store,
		Authenticate: func(r *http.Request) (agenthttp.Principal, error) {
			// The application's own: here a fixed token stands for a verified session.
			if r.Header.Get("Authorization") != "Bearer secret" {
				return agenthttp.Principal{}, agenthttp.ErrUnauthenticated
			}
			return agenthttp.Principal{SettingsID: "acme", User: "alice"}, nil
		},
		Logger: discard,
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))

	r := httptest.NewRequest("POST", "/api/conversations", strings.NewReader(`{"text":"Hi"}`))
	r.Header.Set("Authorization", "Bearer secret")
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Body)
	fmt.Println(w.Code, strings.Contains(string(body), `"text":"Hello! How can I help?"`))
	// Output: 201 true
}
