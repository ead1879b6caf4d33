// Command tickets shows the generated tools of the tickets example: each tool's schema, then calls as a model
// would make them, a bad one among them to show the message the model reads.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tickets: ")
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// calls are what a model might send, in order.
var calls = []struct{ tool, args string }{
	{"search_tickets", `{"query":"printer"}`},
	{"get_ticket", `{"number":4712}`},
	{"search_tickets", `{"query":"printer","status":"done"}`}, // not a status: the model reads why
	{"get_ticket", `{"number":"4712"}`},                       // a string for a number
	{"close_ticket", `{"number":4711}`},                       // no reason given
	{"close_ticket", `{"number":4711,"reason":"Replaced the toner cartridge."}`},
	{"get_ticket", `{"number":4711}`},
	{"get_ticket", `{"number":9999}`}, // the tool's own error
}

func run(ctx context.Context, w io.Writer) error {
	ts := &tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	tools, err := ts.Tools(ctx, nil)
	if err != nil {
		return err
	}
	byName := map[string]*toolset.Tool{}
	fmt.Fprintf(w, "Toolset %s\n", ts.DisplayName())
	for _, tool := range tools {
		byName[tool.Name] = tool
		fmt.Fprintf(w, "\n%s (read-only: %t, requires approval: %t)\n  %s\n", tool.Name, tool.ReadOnly, tool.RequiresApproval, tool.Description)
		var schema bytes.Buffer
		if err := json.Indent(&schema, tool.Schema, "  ", "  "); err != nil {
			return fmt.Errorf("schema of %s: %w", tool.Name, err)
		}
		fmt.Fprintf(w, "  schema: %s\n", schema.String())
	}

	fmt.Fprintln(w, "\nCalls")
	for i, c := range calls {
		tool := byName[c.tool]
		res, err := tool.Call(ctx, &toolset.Call{ID: fmt.Sprintf("call-%d", i+1), Name: c.tool, Arguments: json.RawMessage(c.args)})
		fmt.Fprintf(w, "\n%s %s\n", c.tool, c.args)
		if err != nil {
			fmt.Fprintf(w, "  error for the model: %v\n", err)
			continue
		}
		fmt.Fprintf(w, "  result: %s\n", res)
	}
	return nil
}
