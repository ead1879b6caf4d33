package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/toolset"
)

// exampleToolset stands in for a generated toolset, which is a Source named after its type and builds its tools
// once.
type exampleToolset struct {
	name  string
	tools []*toolset.Tool
}

func (s *exampleToolset) SourceName() string { return s.name }

func (s *exampleToolset) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
	return append([]*toolset.Tool(nil), s.tools...), nil
}

func exampleTool(owner, name, description string) *toolset.Tool {
	return &toolset.Tool{
		Name:        name,
		Description: description,
		Schema:      json.RawMessage(`{"type":"object"}`),
		ID:          "example.com/" + owner + "." + name,
		State:       &toolset.State{},
		Invoke: func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
			return json.RawMessage(`"` + owner + "." + name + ` ran"`), nil
		},
	}
}

var (
	weather = &exampleToolset{name: "Weather", tools: []*toolset.Tool{
		exampleTool("Weather", "get_temp", "Get temperature."),
		exampleTool("Weather", "get_conditions", "Get conditions."),
	}}
	tickets = &exampleToolset{name: "Tickets", tools: []*toolset.Tool{
		exampleTool("Tickets", "query", "Search tickets."),
		exampleTool("Tickets", "close_ticket", "Close a ticket."),
	}}
	reports = &exampleToolset{name: "Reports", tools: []*toolset.Tool{
		exampleTool("Reports", "query", "Search reports."),
		exampleTool("Reports", "close_ticket", "Close a report's ticket."),
	}}
)

func printNames(ctx context.Context, src toolset.Source) {
	tools, err := src.Tools(ctx, &toolset.Run{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	fmt.Println(strings.Join(names, ", "))
}

func ExamplePrefix() {
	db := toolset.Prefix(tickets, "db")
	printNames(context.Background(), db)

	tools, _ := db.Tools(context.Background(), nil)
	fmt.Println(tools[0].ID)                              // identity is kept
	fmt.Println(tools[0].State == tickets.tools[0].State) // state is shared
	fmt.Println(tickets.tools[0].Name)                    // the original is untouched
	// Output:
	// db_query, db_close_ticket
	// example.com/Tickets.query
	// true
	// query
}

func ExamplePrefixSep() {
	printNames(context.Background(), toolset.PrefixSep(weather, "weather", "-"))
	// Output: weather-get_temp, weather-get_conditions
}

func ExampleRename() {
	printNames(context.Background(), toolset.Rename(tickets, map[string]string{"query": "search_tickets"}))
	printNames(context.Background(), toolset.Rename(tickets, map[string]string{"query": "close_ticket", "close_ticket": "query"}))
	printNames(context.Background(), toolset.Rename(tickets, map[string]string{"query": "close_ticket"}))
	printNames(context.Background(), toolset.Rename(tickets, map[string]string{"serch": "search"}))
	// Output:
	// search_tickets, close_ticket
	// close_ticket, query
	// error: Renamed(Tickets): rename "query" -> "close_ticket" collides with tool "close_ticket"
	// error: Renamed(Tickets): rename "serch" -> "search": no tool is named "serch" (tools: close_ticket, query)
}

type roleKeyType struct{}

func ExampleFilter() {
	isAdmin := func(ctx context.Context, run *toolset.Run, t *toolset.Tool) (bool, error) {
		role, ok := ctx.Value(roleKeyType{}).(string)
		if !ok {
			return false, errors.New("no role in context")
		}
		return role == "admin", nil
	}
	sensitive := toolset.Filter(tickets, isAdmin)
	sensitive.OnError = func(ctx context.Context, run *toolset.Run, t *toolset.Tool, err error) {
		fmt.Printf("hid %s: %v\n", t.Name, err)
	}

	printNames(context.WithValue(context.Background(), roleKeyType{}, "admin"), sensitive)
	printNames(context.WithValue(context.Background(), roleKeyType{}, "user"), sensitive)
	printNames(context.Background(), sensitive)
	// Output:
	// query, close_ticket
	//
	// hid query: no role in context
	// hid close_ticket: no role in context
	//
}

func ExampleFilter_order() {
	// A filter outside a prefix sees the prefixed names.
	onlyDB := func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
		return strings.HasPrefix(t.Name, "db_"), nil
	}
	printNames(context.Background(), toolset.Combine(toolset.Filter(toolset.Prefix(tickets, "db"), onlyDB), weather))
	printNames(context.Background(), toolset.Combine(toolset.Prefix(toolset.Filter(tickets, onlyDB), "db"), weather))
	// Output:
	// db_query, db_close_ticket, get_temp, get_conditions
	// get_temp, get_conditions
}

func ExampleCombine() {
	adHoc := exampleTool("main", "echo", "Echo the input.")
	all := toolset.Combine(
		adHoc, // a standalone tool
		toolset.Prefix(tickets, "tickets"),
		toolset.Prefix(weather, "weather"),
	)
	printNames(context.Background(), all)
	fmt.Println(all.SourceName())
	// Output:
	// echo, tickets_query, tickets_close_ticket, weather_get_temp, weather_get_conditions
	// Combined(tool "echo", Prefixed("tickets", Tickets), Prefixed("weather", Weather))
}

func ExampleConflictError() {
	src := toolset.Combine(
		toolset.Prefix(tickets, "db"),
		exampleTool("main", "get_temp", "Get temperature from the lab."),
		toolset.Combine(weather, toolset.Prefix(reports, "db")),
	)
	_, err := src.Tools(context.Background(), nil)
	fmt.Println(err)

	var ce *toolset.ConflictError
	if errors.As(err, &ce) {
		fmt.Println(len(ce.Conflicts), ce.Conflicts[0].Name, len(ce.Conflicts[0].Sources))
	}
	// Output:
	// 3 tool name conflicts:
	//   - "db_query" contributed by: tools[0] Prefixed("db", Tickets), tools[2] Combined(...)[1] Prefixed("db", Reports)
	//   - "db_close_ticket" contributed by: tools[0] Prefixed("db", Tickets), tools[2] Combined(...)[1] Prefixed("db", Reports)
	//   - "get_temp" contributed by: tools[1] tool "get_temp", tools[2] Combined(...)[0] Weather
	// 3 db_query 2
}

func ExampleWrap() {
	experimental := toolset.Wrap(weather, func(ctx context.Context, run *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		for i, t := range tools {
			c := t.Clone() // tools are shared: change a copy
			c.Description = "[experimental] " + t.Description
			tools[i] = c
		}
		return tools, nil
	}).WithName("Tagged")

	tools, _ := experimental.Tools(context.Background(), nil)
	for _, t := range tools {
		fmt.Println(t.Name+":", t.Description)
	}
	fmt.Println(experimental.SourceName())
	// Output:
	// get_temp: [experimental] Get temperature.
	// get_conditions: [experimental] Get conditions.
	// Tagged(Weather)
}

func ExampleWrap_middleware() {
	// Toolset-scoped middleware: run code around every call of the toolset's tools.
	logged := toolset.Wrap(tickets, func(ctx context.Context, run *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		for i, t := range tools {
			next := t.Invoke
			c := t.Clone()
			c.Invoke = func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
				fmt.Println("calling", call.Name)
				res, err := next(ctx, call)
				fmt.Println("done", call.Name, string(res))
				return res, err
			}
			tools[i] = c
		}
		return tools, nil
	})

	tools, _ := toolset.Prefix(logged, "support").Tools(context.Background(), nil)
	_, _ = tools[1].Call(context.Background(), &toolset.Call{ID: "c1", Name: tools[1].Name})
	// Output:
	// calling support_close_ticket
	// done support_close_ticket "Tickets.close_ticket ran"
}
