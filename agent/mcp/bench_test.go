package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// benchGetIn is get_ticket's input for the SDK's reflected handler, which infers its schema from the type.
type benchGetIn struct {
	Number int `json:"number"`
}

// benchSession connects an SDK client to server over in-memory transports.
func benchSession(b *testing.B, server *sdk.Server) *sdk.ClientSession {
	b.Helper()
	ctx := context.Background()
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// BenchmarkServeToolCall is one tools/call of get_ticket over in-memory transports, answered by a served
// generated toolset, and by the SDK's own reflected handler calling the same ticket client. "generated" is the
// same call without MCP, as a run makes it.
func BenchmarkServeToolCall(b *testing.B) {
	ctx := context.Background()
	client := tickets.NewMemoryClient(tickets.SampleTickets()...)
	params := &sdk.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"number": 4711}}
	call := func(b *testing.B, cs *sdk.ClientSession) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}

	b.Run("typeshift", func(b *testing.B) {
		call(b, benchSession(b, mcp.ToolServer(&tickets.Tickets{Client: client}, mcp.Principal{}, nil)))
	})
	b.Run("sdk-reflected", func(b *testing.B) {
		server := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "v1"}, nil)
		sdk.AddTool(server, &sdk.Tool{Name: "get_ticket", Description: "Reads one ticket by its number."},
			func(ctx context.Context, _ *sdk.CallToolRequest, in benchGetIn) (*sdk.CallToolResult, tickets.Ticket, error) {
				tk, ok, err := client.Get(ctx, in.Number)
				if err != nil || !ok {
					return nil, tickets.Ticket{}, err
				}
				return nil, tk, nil
			})
		call(b, benchSession(b, server))
	})
	b.Run("generated", func(b *testing.B) {
		tools, err := (&tickets.Tickets{Client: client}).Tools(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		var get *toolset.Tool
		for _, t := range tools {
			if t.Name == "get_ticket" {
				get = t
			}
		}
		args := json.RawMessage(`{"number":4711}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := get.Call(ctx, &toolset.Call{Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
