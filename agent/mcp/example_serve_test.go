package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// A toolset served as an MCP server, reached here by the SDK's own client through in-memory transports. Over
// stdio, mcp.ServeStdio does the same in one call.
func ExampleToolServer() {
	ctx := context.Background()
	ts := &tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	server := mcp.ToolServer(ts, mcp.Principal{SettingsID: "tenant-42"}, nil)

	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Printf("%s read-only=%v\n", t.Name, t.Annotations.ReadOnlyHint) // close_ticket needs approval: left out
	}
	for _, args := range []map[string]any{{"number": 4712}, {"number": "4712"}} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_ticket", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*sdk.TextContent).Text)
	}
	// Output:
	// search_tickets read-only=true
	// get_ticket read-only=true
	// false {"number":4712,"title":"Invoice shows the wrong address","status":"pending","opened":"2026-03-14T09:30:00Z","tags":["billing"]}
	// true "number" must be an integer, got string
}

// A toolset served over streamable HTTP to several tenants. The application's authentication callback names
// the tenant; each tenant's stored settings configure its tools.
func ExampleHandler() {
	ctx := context.Background()
	store := memory.New()
	doc := fmt.Sprintf(`{"tools":{%q:{"limit":1}}}`, tickets.TicketsSearchTicketsID)
	if _, err := store.PutSettings(ctx, storage.Document{SettingsID: "tenant-42", Kind: "tickets",
		Data: json.RawMessage(doc)}, 0); err != nil {
		log.Fatal(err)
	}
	ts := &tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	auth := func(r *http.Request) (mcp.Principal, error) {
		// A real application checks the token; the example takes the tenant from a header.
		return mcp.Principal{SettingsID: r.Header.Get("X-Tenant")}, nil
	}
	srv := httptest.NewServer(mcp.Handler(ts, auth, &mcp.HandlerOptions{ServeOptions: mcp.ServeOptions{
		Settings: agent.StoredSettings(store), SettingsKind: "tickets"}}))
	defer srv.Close()

	for _, tenant := range []string{"tenant-42", "tenant-7"} {
		tr := &sdk.StreamableClientTransport{Endpoint: srv.URL,
			HTTPClient: &http.Client{Transport: headerTransport{"X-Tenant", tenant}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			log.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tickets", Arguments: map[string]any{"query": ""}})
		if err != nil {
			log.Fatal(err)
		}
		var found []tickets.Ticket
		_ = json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &found)
		fmt.Printf("%s: %d tickets\n", tenant, len(found))
		_ = cs.Close()
	}
	// Output:
	// tenant-42: 1 tickets
	// tenant-7: 3 tickets
}

type headerTransport struct{ key, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}
