package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	oaoption "github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// Two tenants served by one host, each on the provider and model its stored settings name: Acme on Claude,
// Globex on GPT. Local servers stand in for the two APIs; with real keys, drop the base URLs.
func Example_twoTenants() {
	claude := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",`+
			`"content":[{"type":"text","text":"Ticket 4711 is about the printer."}],"stop_reason":"end_turn",`+
			`"stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":12}}`)
	}))
	defer claude.Close()
	gpt := openaitest.NewServer(openaitest.Reply{Text: "4711: the printer is out of toner."})
	defer gpt.Close()

	providers := chat.NewProviders(nil)
	anthropic.Register(providers, option.WithoutEnvironmentDefaults(), option.WithBaseURL(claude.URL), option.WithAPIKey("sk-ant-example"))
	openai.Register(providers, oaoption.WithBaseURL(gpt.URL), oaoption.WithAPIKey("sk-example"), oaoption.WithMaxRetries(0))

	// Each tenant's settings, as an admin page would store them.
	ctx := context.Background()
	store := memory.New()
	for tenant, model := range map[string][2]string{
		"acme":   {anthropic.ProviderName, "claude-sonnet-4-5"},
		"globex": {openai.ProviderName, "gpt-4.1-mini"},
	} {
		doc, err := SupportSettings{Provider: &model[0], Model: &model[1]}.Document(tenant)
		if err != nil {
			panic(err)
		}
		if _, err := store.PutSettings(ctx, doc, 0); err != nil {
			panic(err)
		}
	}

	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets:  []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Providers: providers,
		Store:     store,
	})
	if err != nil {
		panic(err)
	}
	for _, tenant := range []string{"acme", "globex"} {
		res, err := host.Run(ctx, agent.Text("Which ticket is about the printer?"), agent.SettingsID(tenant))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s\n", tenant, res.Text())
	}
	fmt.Println("requests to GPT:", len(gpt.Requests()))
	// Output:
	// acme: Ticket 4711 is about the printer.
	// globex: 4711: the printer is out of toner.
	// requests to GPT: 1
}
