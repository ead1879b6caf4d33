package tickets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset"
)

// tools returns the generated tools of a fresh toolset over the sample tickets, by name.
func tools(t testing.TB, client tickets.TicketClient) map[string]*toolset.Tool {
	t.Helper()
	ts := &tickets.Tickets{Client: client}
	list, err := ts.Tools(context.Background(), nil)
	if err != nil {
		t.Fatalf("Tools: %v", err)
	}
	byName := map[string]*toolset.Tool{}
	for _, tool := range list {
		byName[tool.Name] = tool
	}
	return byName
}

// call invokes a tool through the generated code, with panics recovered as a run would.
func call(tool *toolset.Tool, args string) (string, error) {
	res, err := tool.Call(context.Background(), &toolset.Call{ID: "call-1", Name: tool.Name, Arguments: json.RawMessage(args)})
	return string(res), err
}

// marshal is what encoding/json writes for v: the generated encoders must write the same.
func marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func compact(t testing.TB, doc []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sample(numbers ...int) []tickets.Ticket {
	var out []tickets.Ticket
	for _, n := range numbers {
		for _, tk := range tickets.SampleTickets() {
			if tk.Number == n {
				out = append(out, tk)
			}
		}
	}
	return out
}

func TestToolsDescribeTheGuide(t *testing.T) {
	is := is.New(t)
	byName := tools(t, tickets.NewMemoryClient(tickets.SampleTickets()...))
	is.Equal(len(byName), 3)

	search, get, closeT := byName["search_tickets"], byName["get_ticket"], byName["close_ticket"]
	is.True(search != nil && get != nil && closeT != nil)
	is.True(search.ReadOnly && !search.RequiresApproval)
	is.True(get.ReadOnly && !get.RequiresApproval)
	is.True(!closeT.ReadOnly && closeT.RequiresApproval)
	is.Equal(get.Description, "Reads one ticket by its number.")
	is.True(strings.Contains(search.Description, "newest first")) // from the method's doc comment
	is.True(search.Configure != nil)                              // configurable settings
	is.True(get.Configure == nil && closeT.Configure == nil)

	for name, tool := range byName {
		_, err := schematest.Compile(tool.Schema)
		if err != nil {
			t.Errorf("schema of %s: %v", name, err)
		}
		if tool.SettingsSchema != nil {
			if _, err := schematest.Compile(tool.SettingsSchema); err != nil {
				t.Errorf("settings schema of %s: %v", name, err)
			}
		}
	}
	is.True(strings.Contains(compact(t, search.Schema), `"enum":["open","pending","closed",null]`))
	is.True(strings.Contains(compact(t, search.SettingsSchema), `"limit":{"type":"integer"`))
}

func TestInvoke(t *testing.T) {
	tests := []struct {
		name, tool, args string
		// want is the result's JSON; wantErr a part of the message the model reads.
		want    string
		wantErr string
		// bad reports an error about the arguments (a *toolset.ArgumentError) rather than the tool's own.
		bad bool
	}{
		{name: "search", tool: "search_tickets", args: `{"query":"printer"}`,
			want: marshal(t, sample(4711))},
		{name: "search by status", tool: "search_tickets", args: `{"query":"","status":"pending"}`,
			want: marshal(t, sample(4712))},
		{name: "search with null status", tool: "search_tickets", args: `{"query":"printer","status":null}`,
			want: marshal(t, sample(4711))},
		{name: "search finds nothing", tool: "search_tickets", args: `{"query":"teapot"}`, want: `[]`},
		{name: "get", tool: "get_ticket", args: `{"number":4712}`, want: marshal(t, sample(4712)[0])},
		{name: "get closed", tool: "get_ticket", args: ` { "number" : 4713 } `, want: marshal(t, sample(4713)[0])},
		{name: "close", tool: "close_ticket", args: `{"number":4711,"reason":"Fixed the toner."}`},

		{name: "missing field", tool: "search_tickets", args: `{}`, bad: true, wantErr: `missing required property "query"`},
		{name: "missing reason", tool: "close_ticket", args: `{"number":4711}`, bad: true, wantErr: `missing required property "reason"`},
		{name: "out of range", tool: "get_ticket", args: `{"number":0}`, bad: true, wantErr: `"number" must be at least 1`},
		{name: "not an integer", tool: "get_ticket", args: `{"number":1.5}`, bad: true, wantErr: `"number"`},
		{name: "wrong type", tool: "search_tickets", args: `{"query":42}`, bad: true, wantErr: `"query" must be a string`},
		{name: "not in the enum", tool: "search_tickets", args: `{"query":"x","status":"done"}`, bad: true,
			wantErr: `"status" must be one of open, pending, closed`},
		{name: "unknown property", tool: "search_tickets", args: `{"query":"x","limit":5}`, bad: true,
			wantErr: `unknown property "limit"`},
		{name: "too long", tool: "close_ticket", args: `{"number":4711,"reason":"` + strings.Repeat("a", 501) + `"}`, bad: true,
			wantErr: `"reason"`},
		{name: "not an object", tool: "get_ticket", args: `[4711]`, bad: true, wantErr: `must be an object`},
		{name: "broken JSON", tool: "get_ticket", args: `{"number":`, bad: true, wantErr: `invalid JSON`},

		{name: "the tool's own error", tool: "get_ticket", args: `{"number":9999}`,
			wantErr: "no ticket 9999 exists: search for it first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tool := tools(t, tickets.NewMemoryClient(tickets.SampleTickets()...))[tt.tool]
			got, err := call(tool, tt.args)
			if tt.wantErr == "" {
				is.NoErr(err)
				if tt.want != "" {
					is.Equal(got, tt.want)
				}
				return
			}
			is.True(err != nil)
			t.Logf("the model reads: %v", err)
			is.True(strings.Contains(err.Error(), tt.wantErr))
			var argErr *toolset.ArgumentError
			is.Equal(errors.As(err, &argErr), tt.bad)
		})
	}
}

func TestCloseChangesTheTicket(t *testing.T) {
	is := is.New(t)
	client := tickets.NewMemoryClient(tickets.SampleTickets()...)
	byName := tools(t, client)
	_, err := call(byName["close_ticket"], `{"number":4711,"reason":"Fixed the toner."}`)
	is.NoErr(err)
	got, err := call(byName["get_ticket"], `{"number":4711}`)
	is.NoErr(err)
	var tk tickets.Ticket
	is.NoErr(json.Unmarshal([]byte(got), &tk))
	is.Equal(tk.Status, tickets.StatusClosed)
	is.Equal(tk.Resolution, "Fixed the toner.")

	_, err = call(byName["close_ticket"], `{"number":4711,"reason":"Again."}`)
	is.True(err != nil)
	is.Equal(err.Error(), "ticket 4711 is already closed")
}

func TestSettings(t *testing.T) {
	is := is.New(t)
	search := tools(t, tickets.NewMemoryClient(tickets.SampleTickets()...))["search_tickets"]
	all := `{"query":""}`

	got, err := call(search, all) // the default limit is 20, closed tickets left out
	is.NoErr(err)
	is.Equal(got, marshal(t, sample(4714, 4712, 4711)))

	one, err := search.WithOverrides(json.RawMessage(`{"limit":1}`))
	is.NoErr(err)
	got, err = call(one, all)
	is.NoErr(err)
	is.Equal(got, marshal(t, sample(4714)))

	// Later layers win, and each layer changes only what it names.
	closed, err := search.WithOverrides(json.RawMessage(`{"limit":1}`), json.RawMessage(`{"include_closed":true}`), json.RawMessage(`{"limit":10}`))
	is.NoErr(err)
	got, err = call(closed, `{"query":"printer"}`)
	is.NoErr(err)
	is.Equal(got, marshal(t, sample(4711, 4713)))

	// The original is unchanged.
	got, err = call(search, `{"query":"printer"}`)
	is.NoErr(err)
	is.Equal(got, marshal(t, sample(4711)))

	for _, bad := range []string{`{"limit":500}`, `{"limit":0}`, `{"limit":"5"}`, `{"secret":1}`} {
		_, err := search.WithOverrides(json.RawMessage(bad))
		is.True(err != nil) // bad overrides are refused
		t.Logf("%s: %v", bad, err)
	}
}

// panicky is a client whose every call panics, to show that a panic in a tool reaches the model as a message.
type panicky struct{ tickets.TicketClient }

func (panicky) Get(context.Context, int) (tickets.Ticket, bool, error) {
	panic("the ticket system is down")
}

func TestPanicIsAToolError(t *testing.T) {
	is := is.New(t)
	get := tools(t, panicky{})["get_ticket"]
	_, err := call(get, `{"number":1}`)
	var pe *toolset.PanicError
	is.True(errors.As(err, &pe))
	is.Equal(pe.Tool, "get_ticket")
	is.True(!strings.Contains(err.Error(), "ticket system is down")) // the panic value stays with the developer
}

func TestToolsAreBuiltOnce(t *testing.T) {
	is := is.New(t)
	ts := &tickets.Tickets{Client: tickets.NewMemoryClient()}
	a, err := ts.Tools(context.Background(), nil)
	is.NoErr(err)
	b, err := ts.Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(a), len(b))
	for i := range a {
		is.True(a[i] == b[i]) // the same tools, not rebuilt
	}
}

func TestDecodeWithoutCalling(t *testing.T) {
	is := is.New(t)
	byName := tools(t, panicky{}) // Decode must not reach the client
	in, err := byName["close_ticket"].Decode(json.RawMessage(`{"number":4711,"reason":"Done."}`))
	is.NoErr(err)
	is.Equal(in, tickets.CloseInput{Number: 4711, Reason: "Done."})
	_, err = byName["close_ticket"].Decode(json.RawMessage(`{"number":4711}`))
	var argErr *toolset.ArgumentError
	is.True(errors.As(err, &argErr))
	is.Equal(argErr.Message, `missing required property "reason"`)
}
