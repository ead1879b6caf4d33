package evalhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/eval/evalhttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// desk is an agent with the tickets' tools.
type desk struct{ agent.Agent }

func (a *desk) Declare() { agent.Use[*tickets.Tickets](a) }

func (a *desk) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Desk", Uses: []agent.UseDeclaration{{Index: 0}}}
}

// A development server that saves its tenants' conversations as eval cases.
func ExampleCase() {
	store := memory.New()
	host, err := agent.NewHost(&desk{}, agent.Config{
		Store: store,
		Client: chattest.NewScript(
			chattest.Calls(chattest.Call("call_1", "get_ticket", `{"number":4711}`)),
			chattest.Text("Ticket 4711 is open.")),
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
	})
	if err != nil {
		panic(err)
	}
	api, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{
		Store: store,
		Authenticate: func(r *http.Request) (agenthttp.Principal, error) {
			return agenthttp.Principal{SettingsID: "tenant-42"}, nil
		},
		EvalCase: evalhttp.Case,
	})
	if err != nil {
		panic(err)
	}

	do := func(method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		return w
	}
	var run struct {
		ID string `json:"conversation_id"`
	}
	if err := json.Unmarshal(do("POST", "/conversations", `{"text":"Is ticket 4711 open?"}`).Body.Bytes(), &run); err != nil {
		panic(err)
	}

	w := do("GET", "/conversations/"+run.ID+"/eval-case?name=open_ticket", "")
	fmt.Println(w.Code, w.Header().Get("Content-Disposition"))
	c, err := eval.ParseCase(w.Body.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Name, c.SettingsID, c.Text)
	fmt.Println(c.Expect.Trajectory.Calls[0], c.Expect.Answer.Reference)
	// Output:
	// 200 attachment; filename=open_ticket.json
	// open_ticket tenant-42 Is ticket 4711 open?
	// get_ticket(number=4711) Ticket 4711 is open.
}
