package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

type countIn struct {
	Text string `json:"text"`
}

type countOut struct {
	Words int `json:"words"`
}

// An MCP server in the same process, reached through in-memory transports. A real server is reached with
// sdk.CommandTransport (a subprocess over stdio) or sdk.StreamableClientTransport (HTTP) instead.
func Example() {
	ctx := context.Background()

	server := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "v1"}, nil)
	sdk.AddTool(server, &sdk.Tool{
		Name:        "count_words",
		Description: "Count the words of a text.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in countIn) (*sdk.CallToolResult, countOut, error) {
		return nil, countOut{Words: len(strings.Fields(in.Text))}, nil
	})
	sdk.AddTool(server, &sdk.Tool{
		Name:        "delete_note",
		Description: "Delete a note.",
	}, func(_ context.Context, _ *sdk.CallToolRequest, in struct{ ID string }) (*sdk.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("note %q does not exist", in.ID)
	})
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	session, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	notes, err := mcp.Connect(ctx, clientEnd, &mcp.Options{Name: "notes"})
	if err != nil {
		log.Fatal(err)
	}
	defer notes.Close()

	// Offer the tools under a prefix, as an agent host would among its other sources.
	tools, err := toolset.Prefix(notes, "notes").Tools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Printf("%s (%s) read-only=%v approval=%v\n", t.Name, t.ID, t.ReadOnly, t.RequiresApproval)
	}

	result, err := tools[0].Call(ctx, &toolset.Call{Arguments: json.RawMessage(`{"text":"to be or not to be"}`)})
	fmt.Println(string(result), err)
	_, err = tools[1].Call(ctx, &toolset.Call{Arguments: json.RawMessage(`{"ID":"n7"}`)})
	fmt.Println(err)
	_, err = tools[1].Call(ctx, &toolset.Call{Arguments: json.RawMessage(`["n7"]`)})
	fmt.Println(err)
	// Output:
	// notes_count_words (mcp:notes:count_words) read-only=true approval=false
	// notes_delete_note (mcp:notes:delete_note) read-only=false approval=true
	// {"words":6} <nil>
	// note "n7" does not exist
	// arguments must be an object, got array
}
