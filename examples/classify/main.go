// Command classify runs a triage agent that answers with a Go value, not text: for each ticket it reads the
// ticket with a tool, then returns a Verdict, which the generated decoder reads and a validator checks (an
// escalation must name a team). The answer's fields print as they stream in.
//
//	go run ./examples/classify              # the sample tickets, offline
//	go run ./examples/classify 4711 4714    # some of them
//
// Without an API key it runs offline, on a small scripted model that forgets the team of its first escalation,
// so that the validator's retry shows. With OPENAI_API_KEY it uses the OpenAI API (or the server OPENAI_BASE_URL
// names) in strict structured-output mode, with the model OPENAI_MODEL (default gpt-4.1-mini).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("classify: ")
	var numbers []int
	for _, arg := range os.Args[1:] {
		n, err := strconv.Atoi(arg)
		if err != nil {
			log.Fatalf("%q is not a ticket number", arg)
		}
		numbers = append(numbers, n)
	}
	if len(numbers) == 0 {
		for _, t := range tickets.SampleTickets() {
			numbers = append(numbers, t.Number)
		}
	}
	if err := run(context.Background(), os.Stdout, client(), numbers); err != nil {
		log.Fatal(err)
	}
}

// client is the OpenAI API's when OPENAI_API_KEY is set, and the offline model otherwise.
func client() chat.Client {
	if os.Getenv("OPENAI_API_KEY") == "" {
		return offlineModel()
	}
	model := os.Getenv("OPENAI_MODEL")
	if model == "" {
		model = "gpt-4.1-mini"
	}
	return openai.New().WithModel(model) // reads OPENAI_API_KEY and OPENAI_BASE_URL
}

// run classifies each ticket and prints its verdict, the fields as they stream in first.
func run(ctx context.Context, w io.Writer, c chat.Client, numbers []int) error {
	host, err := agent.NewHost(&Triage{}, agent.Config{
		Client:   c,
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
	})
	if err != nil {
		return err
	}
	for _, n := range numbers {
		fmt.Fprintf(w, "ticket %d\n", n)
		var res agent.Result
		for u, err := range host.RunStream(ctx, agent.Text(fmt.Sprintf("Triage ticket %d.", n)), agent.ResultInto(&res)) {
			if err != nil {
				return fmt.Errorf("ticket %d: %w", n, err)
			}
			switch {
			case u.Answer != nil && !u.Answer.Final:
				fmt.Fprintf(w, "  so far  %s\n", u.Answer.Value)
			case len(u.Parts) > 0 && u.Role == chat.RoleUser:
				text, _, _ := strings.Cut(u.Parts[0].(chat.Text).Text, "\n")
				fmt.Fprintf(w, "  sent back: %s\n", text)
			}
		}
		v, err := agent.AnswerOf[Verdict](&res)
		if err != nil {
			return fmt.Errorf("ticket %d: %w", n, err)
		}
		assignee := "nobody"
		if v.Assignee != nil {
			assignee = *v.Assignee
		}
		fmt.Fprintf(w, "  verdict  %s, priority %d, for %s: %s\n", v.Decision, v.Priority, assignee, v.Reasons[0])
	}
	return nil
}
