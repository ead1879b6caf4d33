// Command support runs a support agent over the tickets toolset: it answers a question with a read-only tool,
// asks you before it closes a ticket, and works out a plan in plan mode before it changes anything.
//
//	go run ./examples/support            # offline, answering the approval requests at the terminal
//	go run ./examples/support -yes       # approve everything without asking
//	go run ./examples/support -plan      # plan mode only
//	go run ./examples/support -http 127.0.0.1:8080   # serve the HTTP API, A2A and the dev UI (docs/http.md, docs/a2a.md, docs/dev-ui.md)
//	go run ./examples/support -http 127.0.0.1:8080 -a2a-agent http://127.0.0.1:9090/a2a   # and call another A2A agent as a tool
//
// Without an API key it runs offline, on a small scripted model. With OPENAI_API_KEY it uses the OpenAI API, or any
// server of the same wire format named by OPENAI_BASE_URL, with the model OPENAI_MODEL (default gpt-4.1-mini);
// with ANTHROPIC_API_KEY instead, Claude, with the model ANTHROPIC_MODEL (default claude-sonnet-4-5); with
// GEMINI_API_KEY instead, Gemini, with the model GEMINI_MODEL (default gemini-2.5-flash).
// The conversation is kept in memory, or in Postgres when TYPESHIFT_DATABASE_URL names a database.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// options are what the command line and the environment set.
type options struct {
	yes      bool   // approve without asking
	planOnly bool   // show plan mode only
	seed     int64  // the sampling seed sent to the model
	provider string // the provider of the model: "openai", "anthropic", or "" for the offline model
	model    string // the model; empty keeps the agent's
	httpAddr string // serve the HTTP API on this address instead of telling the story
	a2aAgent string // the URL of another A2A agent's card, offered to the agent as a tool when serving
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("support: ")
	var o options
	flag.BoolVar(&o.yes, "yes", false, "approve every request without asking")
	flag.BoolVar(&o.planOnly, "plan", false, "show plan mode only")
	flag.Int64Var(&o.seed, "seed", 1, "sampling `seed` sent to the model, for answers that repeat")
	flag.StringVar(&o.httpAddr, "http", "", "serve the agent's HTTP API on this loopback `address` (see docs/http.md)")
	flag.StringVar(&o.a2aAgent, "a2a-agent", "", "with -http, offer the A2A agent whose card is at this `URL` as a tool (A2A_AGENT_TOKEN, if set, is its bearer token; see docs/a2a.md)")
	flag.Parse()
	o.provider, o.model = provider()

	if o.httpAddr != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := serveHTTP(ctx, o.httpAddr, o, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}

	// No signal handling: Ctrl-C at a prompt should end the program at once, and nothing needs cleaning up.
	if err := run(context.Background(), o, os.Stdin, os.Stdout, !isTerminal(os.Stdin)); err != nil {
		log.Fatal(err)
	}
}

// run tells the story: a question, a ticket closed after approval, and a plan approved before it is carried out.
func run(ctx context.Context, o options, in io.Reader, out io.Writer, echo bool) error {
	desk := tickets.NewMemoryClient(tickets.SampleTickets()...)
	t := &terminal{in: bufio.NewReader(in), out: out, echo: echo, yes: o.yes, calls: map[string]string{}}

	store, closeStore, err := openStore(ctx, out)
	if err != nil {
		return err
	}
	defer closeStore()
	cfg := agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: desk}},
		Inner:    []chat.Middleware{t.showTools},
		Store:    store,
	}
	useModel(&cfg, o, out, false)
	host, err := agent.NewHost(&Support{}, cfg)
	if err != nil {
		return err
	}
	// The run's settings, typed: SupportSettings is generated from what Declare marks Configurable.
	settings := SupportSettings{Seed: &o.seed}
	if o.provider != "" && o.provider != openai.ProviderName {
		settings.Provider = &o.provider // the agent's default provider is openai
	}
	if o.model != "" {
		settings.Model = &o.model
	}
	doc, err := settings.MarshalJSON()
	if err != nil {
		return err
	}
	s := &session{host: host, t: t, conv: newConversation(), settings: doc}

	if !o.planOnly {
		t.heading("1. A question: the agent calls a read-only tool")
		if err := s.turn(ctx, "Which tickets are about the printer?"); err != nil {
			return err
		}

		t.heading("2. Approval: closing a ticket waits for your answer")
		if err := s.turn(ctx, "Please close ticket 4711: the toner cartridge was replaced."); err != nil {
			return err
		}
		showTicket(ctx, t, desk, 4711)
	}

	t.heading("3. Plan mode: read-only tools and a plan, approved before anything changes")
	s.conv.mode = agent.ModePlan
	if err := s.turn(ctx, "Work out how to settle ticket 4712: the address on the invoice is corrected now."); err != nil {
		return err
	}
	showTicket(ctx, t, desk, 4712)
	return nil
}

// A session runs the turns of one conversation at the terminal.
type session struct {
	host     *agent.Host
	t        *terminal
	conv     *conversation
	settings json.RawMessage
}

// turn runs the agent on the user's text, then once more for each round of approval requests it ends with.
func (s *session) turn(ctx context.Context, text string) error {
	s.t.label("you", text)
	s.t.setMode(s.conv.mode, "")
	input := []agent.RunOption{agent.Text(text)}
	for {
		var res agent.Result
		opts := append(s.conv.options(), agent.RunSettings(s.settings), agent.ResultInto(&res))
		for u, err := range s.host.RunStream(ctx, append(opts, input...)...) {
			if err != nil {
				s.t.endText()
				return fmt.Errorf("run: %w", err)
			}
			s.t.show(u)
		}
		s.t.endText()
		s.t.setMode(res.Mode, "")
		s.conv.keep(&res)
		if len(res.Pending) == 0 {
			return nil
		}
		input = input[:0]
		for _, p := range res.Pending {
			input = append(input, s.t.ask(p))
		}
	}
}

// showTicket prints a ticket as the ticket system holds it, to show what the agent's tools did.
func showTicket(ctx context.Context, t *terminal, desk tickets.TicketClient, number int) {
	tk, ok, err := desk.Get(ctx, number)
	switch {
	case err != nil:
		t.label("ticket", err.Error())
	case !ok:
		t.label("ticket", fmt.Sprintf("#%d does not exist", number))
	case tk.Resolution != "":
		t.label("ticket", fmt.Sprintf("#%d is %s: %s", number, tk.Status, tk.Resolution))
	default:
		t.label("ticket", fmt.Sprintf("#%d is %s", number, tk.Status))
	}
}

// isTerminal reports whether f is a terminal rather than a file or a pipe.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
