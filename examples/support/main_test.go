package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// TestRun runs the whole story offline with scripted answers and checks what the transcript says, not its exact
// layout.
func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		opts  options
		stdin string
		want  []string // in this order
		not   []string
	}{
		{
			name:  "approve everything",
			stdin: "y\ny\ny\n",
			want: []string{
				"No OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY: using the offline test model.",
				"you      Which tickets are about the printer?",
				"tools    search_tickets, get_ticket, close_ticket",
				"call     search_tickets {\"query\":\"printer\"}",
				"result   [{\"number\":4711,",
				"support  Open tickets about \"printer\": #4711 \"Printer prints blank pages\" (open).",
				"approval close_ticket {\"number\":4711,\"reason\":\"The toner cartridge was replaced.\"}",
				"Approve? [y/n] y",
				"call     close_ticket {\"number\":4711",
				"support  Ticket 4711 is closed.",
				"ticket   #4711 is closed: The toner cartridge was replaced.",
				"mode     plan",
				"tools    search_tickets, get_ticket, exit_plan_mode",
				"call     get_ticket {\"number\":4712}",
				"plan     1. Close ticket 4712",
				"Approve the plan? [y/n] y",
				"mode     default (the plan is approved",
				"tools    search_tickets, get_ticket, close_ticket",
				"approval close_ticket {\"number\":4712,",
				"support  Ticket 4712 is closed.",
				"ticket   #4712 is closed: The address on the invoice is corrected now.",
			},
			not: []string{"no input"},
		},
		{
			name:  "reject the closing, with a reason",
			stdin: "n\nThe customer still sees blank pages.\ny\nn\n\n",
			want: []string{
				"approval close_ticket {\"number\":4711,",
				"Approve? [y/n] n",
				"Reason (optional): The customer still sees blank pages.",
				"error    The customer still sees blank pages.",
				"support  Ticket 4711 stays open.",
				"ticket   #4711 is open",
				"Approve the plan? [y/n] y",
				"approval close_ticket {\"number\":4712,",
				"Approve? [y/n] n",
				"error    The tool call was denied.",
				"ticket   #4712 is pending",
			},
			not: []string{"Ticket 4711 is closed."},
		},
		{
			name:  "reject the plan",
			opts:  options{planOnly: true},
			stdin: "no\nCall the customer first.\n",
			want: []string{
				"mode     plan",
				"Approve the plan? [y/n] no",
				"error    The plan was not approved: Call the customer first.",
				"support  Understood: I stay in plan mode",
				"ticket   #4712 is pending",
			},
			not: []string{"1. A question", "mode     default", "close_ticket"},
		},
		{
			name:  "no input approves and says so",
			stdin: "",
			want: []string{
				"Approve? [y/n] y (no input: approving; run it at a terminal to answer, or pass -yes)",
				"ticket   #4711 is closed",
				"Approve the plan? [y/n] y (no input)",
				"ticket   #4712 is closed",
			},
		},
		{
			name:  "-yes approves without reading",
			opts:  options{yes: true},
			stdin: "n\nn\nn\n",
			want: []string{
				"Approve? [y/n] y (-yes)",
				"ticket   #4711 is closed",
				"Approve the plan? [y/n] y (-yes)",
				"ticket   #4712 is closed",
			},
			not: []string{"Reason"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out strings.Builder
			err := run(ctx, tt.opts, strings.NewReader(tt.stdin), &out, true)
			is.NoErr(err)
			got := out.String()
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing, or out of order: %q\ntranscript:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q\ntranscript:\n%s", n, got)
				}
			}
		})
	}
}

// TestTranscriptIsShort keeps the lines readable: no long JSON dumps.
func TestTranscriptIsShort(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	is.NoErr(run(context.Background(), options{yes: true}, strings.NewReader(""), &out, true))
	for line := range strings.Lines(out.String()) {
		if n := len([]rune(strings.TrimRight(line, "\n"))); n > 110 {
			t.Errorf("line of %d characters: %s", n, line)
		}
	}
}

func TestOfflineHelpers(t *testing.T) {
	is := is.New(t)
	is.Equal(topic("Which tickets are about the printer?"), "printer")
	is.Equal(topic("Show me everything."), "")
	is.Equal(ticketNumber("Close ticket 4711: done"), 4711)
	is.Equal(ticketNumber("no number"), 0)
	is.Equal(reason("Close 4711: the toner was replaced"), "The toner was replaced.")
	is.Equal(reason("Close 4711"), "Closed at the customer's request.")
}

// TestRunOnline runs plan mode against a local server that speaks the OpenAI wire format, as the program does with
// OPENAI_API_KEY and OPENAI_BASE_URL set, and checks what reached the server.
func TestRunOnline(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "c1", Name: "get_ticket", Arguments: `{"number":4712}`}}},
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "c2", Name: "exit_plan_mode", Arguments: `{"plan":"1. Close 4712."}`}}},
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "c3", Name: "close_ticket", Arguments: `{"number":4712,"reason":"Fixed."}`}}},
		openaitest.Reply{Text: "Ticket 4712 is closed."},
	)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("OPENAI_BASE_URL", srv.URL)

	var out strings.Builder
	o := options{planOnly: true, provider: "openai", model: "gpt-test", seed: 7}
	is.NoErr(run(context.Background(), o, strings.NewReader("y\ny\n"), &out, true))
	got := out.String()
	for _, w := range []string{"OPENAI_API_KEY is set: using " + srv.URL, "plan     1. Close 4712.", "mode     default", "support  Ticket 4712 is closed.", "ticket   #4712 is closed: Fixed."} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q\ntranscript:\n%s", w, got)
		}
	}

	reqs := srv.Requests()
	is.Equal(len(reqs), 4)
	first := reqs[0].Decode()
	is.Equal(first["model"], "gpt-test")
	is.Equal(first["seed"], 7.0)
	var tools []string
	for _, tool := range first["tools"].([]any) {
		tools = append(tools, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	is.Equal(strings.Join(tools, ","), "search_tickets,get_ticket,exit_plan_mode") // plan mode: nothing that changes a ticket
}
