package eval_test

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/cassette"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/openai"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// loadCase reads one case of testdata/cases, edited by change when it is not nil.
func loadCase(t *testing.T, name string, change func(c *eval.Case)) *eval.Case {
	t.Helper()
	cases, err := eval.Load(os.DirFS("testdata"), "cases")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name == name {
			if change != nil {
				change(c)
			}
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}

// The flaky model reads the ticket in two runs of three: pass@3 passes, a pass rate of 1 does not, and the
// reason names the run that failed and why.
func TestRepeat(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   float64
		passed bool
		reason string
	}{
		{"pass@k", 0, true, ""},
		{"two of three", 0.6, true, ""},
		{"every run", 1, false, `2 of 3 runs passed, 3 needed; run 2: tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be get_ticket(number=4713), got search_tickets {"query":"4713"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c := loadCase(t, "repeat_any", func(c *eval.Case) { c.Repeat.MinPassRate = tc.rate })
			res, err := eval.Evaluate(t.Context(), newHost(t, c), c, nil)
			is.NoErr(err)
			is.Equal(res.Runs, 3)
			is.Equal(res.PassedRuns, 2)
			is.Equal(res.Passed, tc.passed)
			is.Equal(res.Reason, tc.reason)
			is.Equal(res.Scores[0].Name, eval.ScoreTrajectory)
			is.True(res.Scores[0].Value > 0.66 && res.Scores[0].Value < 0.67) // the mean over the runs
			is.True(strings.HasPrefix(res.Scores[0].Reason, "run 2 of 3: "))  // the reason of the lowest
		})
	}
}

// Options.Repeat runs a case more often than its cassette holds: the replay misses, and the run that missed
// counts as a failed run.
func TestRepeatMoreThanRecorded(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "get_ticket", nil)
	rec := cassette.New(&quiet{T: t}, filepath.Join("testdata", "cassettes", "get_ticket.txt"), nil)
	client := openai.New(option.WithBaseURL("http://127.0.0.1:1"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client:   client,
	})
	is.NoErr(err)
	res, err := eval.Evaluate(t.Context(), host, c, &eval.Options{Repeat: 2})
	is.NoErr(err)
	is.Equal(res.Runs, 2)
	is.Equal(res.PassedRuns, 1)
	is.True(res.Passed) // one run is enough
	is.True(errors.Is(rec.Err(), cassette.ErrMiss))
}

// quiet is a test whose Errorf is noted, not reported: the miss above is what the test asks for.
type quiet struct {
	*testing.T
	errs []string
}

func (q *quiet) Errorf(format string, args ...any) { q.errs = append(q.errs, format) }

// A model that asks for close_ticket in plan mode, where the host does not offer it, fails the plan case, and
// the reason names the call.
func TestPlanModeBroken(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "plan", func(c *eval.Case) { c.Expect.Spans = nil })
	srv := httptest.NewServer(&scriptedModel{ignorePlan: true})
	t.Cleanup(srv.Close)
	client := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client:   client,
	})
	is.NoErr(err)
	res, err := eval.Evaluate(t.Context(), host, c, nil)
	is.NoErr(err)
	is.True(!res.Passed)
	var plan eval.Score
	for _, s := range res.Scores {
		if s.Name == eval.ScorePlan {
			plan = s
		}
	}
	is.Equal(plan.Value, 0.0)
	is.Equal(plan.Reason, `called tools that are not read-only in plan mode: close_ticket {"number":4714,"reason":"Resolved at the customer's request."}; proposed no plan (no exit_plan_mode call)`)
}

// The spans say what ran: a rejected close never ran, whatever the model asked.
func TestSpansShowWhatRan(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "close_rejected", func(c *eval.Case) { c.Expect.Spans.Executed = []string{"close_ticket"} })
	ins, spans := spanRecorder()
	res, err := eval.Evaluate(t.Context(), tracedHost(t, c, ins), c, &eval.Options{Spans: spans.Ended})
	is.NoErr(err)
	is.True(!res.Passed)
	is.True(strings.Contains(res.Reason, "tools_executed 0.00 < 1.00: expected the tools close_ticket to run, the spans show nothing"))

	host, err := agent.NewHost(&Plain{}, agent.Config{Client: openai.New(option.WithBaseURL("http://127.0.0.1:1"))})
	is.NoErr(err)
	_, err = eval.Evaluate(t.Context(), host, c, nil)
	is.True(err != nil) // spans expected, and no source of them
	is.True(strings.Contains(err.Error(), "Options.Spans"))
}

// The suite's price makes the cost of a case that gives none; past the limit, the case fails saying by how much.
func TestCost(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "get_ticket", func(c *eval.Case) { c.Expect.MaxCost = 0.0001 })
	res, err := eval.Evaluate(t.Context(), newHost(t, c), c, &eval.Options{Price: price})
	is.NoErr(err)
	is.True(!res.Passed)
	is.True(strings.Contains(res.Reason, "cost 0.52 < 1.00: 240 input and 60 output tokens cost 0.000192, more than 0.0001"))

	res, err = eval.Evaluate(t.Context(), newHost(t, c), c, nil)
	is.NoErr(err)
	is.True(!res.Passed) // a limit with no price never passes
	is.True(strings.Contains(res.Reason, "no price is given"))
}

// Without a price of the suite's, the cost is the one the host's meter puts on the runs from its price table;
// a model the table does not know makes the cost unknown, which never passes.
func TestCostFromTheHostsMeter(t *testing.T) {
	other, err := budget.ParsePrices([]byte(`{"currency":"EUR","taken":"2026-01-01","models":[{"provider":"openai","model":"gpt-4o","input":2.5,"output":10}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		prices *budget.Prices
		limit  float64
		passed bool
		reason string
	}{
		{"within", nil, 0.001, true, ""},
		{"past the limit", nil, 0.0001, false, "cost 0.52 < 1.00: 240 input and 60 output tokens cost 0.000192 USD as the host priced them, more than 0.0001"},
		{"a model the table lacks", other, 1, false, "cost 0.00 < 1.00: 2 model calls have no price in the host's price table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c := loadCase(t, "get_ticket", func(c *eval.Case) { c.Expect.MaxCost = tc.limit })
			host := configuredHost(t, c, func(cfg *agent.Config) { cfg.Meter = budget.New(&budget.Options{Prices: tc.prices}) })
			res, err := eval.Evaluate(t.Context(), host, c, nil)
			is.NoErr(err)
			is.Equal(res.Passed, tc.passed)
			is.True(strings.HasPrefix(res.Reason, tc.reason))
		})
	}
}

// A stored conversation becomes a case: its question, the calls made and the answer as editable expectations;
// the case passes on a replay of the same exchanges, and another tenant cannot read the conversation.
func TestFromConversation(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "get_ticket", nil)
	rec := cassette.New(t, filepath.Join("testdata", "cassettes", "get_ticket.txt"), nil)
	client := openai.New(option.WithBaseURL("http://127.0.0.1:1"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client:   client,
		Store:    memory.New(),
	})
	is.NoErr(err)
	res, err := host.Run(t.Context(), agent.Text(c.Text), agent.SettingsID("tenant-42"), agent.Conversation("c-1"))
	is.NoErr(err)

	made, err := eval.FromConversation(t.Context(), host, "tenant-42", "c-1")
	is.NoErr(err)
	is.Equal(made.Text, "Is ticket 4711 open?")
	is.Equal(made.SettingsID, "tenant-42")
	is.Equal(len(made.Expect.Trajectory.Calls), 1)
	is.Equal(made.Expect.Trajectory.Calls[0].String(), "get_ticket(number=4711)")
	is.Equal(made.Expect.Answer.Reference, res.Text())
	is.Equal(len(*made.Expect.Approvals), 0)

	// The file it makes reads back as the same case.
	data, err := made.MarshalIndent()
	is.NoErr(err)
	again, err := eval.ParseCase(data)
	is.NoErr(err)
	is.Equal(again.Expect.Trajectory.Calls[0].String(), "get_ticket(number=4711)")
	is.True(again.Expect.Approvals != nil && len(*again.Expect.Approvals) == 0) // no call may wait, as none did

	// The case passes on the same exchanges, and fails when the model answers otherwise.
	again.Name = "get_ticket"
	out, err := eval.Evaluate(t.Context(), newHost(t, again), again, nil)
	is.NoErr(err)
	is.True(out.Passed)
	again.Expect.Answer.Reference = "The invoice shows the wrong address."
	out, err = eval.Evaluate(t.Context(), newHost(t, again), again, nil)
	is.NoErr(err)
	is.True(!out.Passed)
	is.True(strings.Contains(out.Reason, "response_match_score"))

	_, err = eval.FromConversation(t.Context(), host, "tenant-43", "c-1")
	is.True(errors.Is(err, storage.ErrNotFound)) // another tenant's conversation is not found
}

// A conversation whose close waited for approval, was approved and ran, makes a case that waits, approves and
// expects the close.
func TestFromMessagesApproval(t *testing.T) {
	is := is.New(t)
	c := loadCase(t, "close_approved", func(c *eval.Case) { c.Expect.Spans = nil })
	res, err := eval.Evaluate(t.Context(), newHost(t, c), c, nil)
	is.NoErr(err)
	is.True(res.Passed)

	rec := cassette.New(t, filepath.Join("testdata", "cassettes", "close_approved.txt"), nil)
	client := openai.New(option.WithBaseURL("http://127.0.0.1:1"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client:   client,
	})
	is.NoErr(err)
	first, err := host.Run(t.Context(), agent.Text(c.Text))
	is.NoErr(err)
	second, err := host.Run(t.Context(), agent.Messages(first.Messages), agent.Approve(first.Pending[0].ID))
	is.NoErr(err)
	made, err := eval.FromMessages(second.Messages)
	is.NoErr(err)
	is.Equal(*made.Expect.Approvals, []string{"close_ticket"})
	is.True(made.Approve != nil && *made.Approve)
	is.Equal(made.Expect.Trajectory.Calls[0].Tool, "close_ticket")
	is.True(strings.Contains(made.Expect.Answer.Reference, "closed"))

	_, err = eval.FromMessages(nil)
	is.True(errors.Is(err, eval.ErrNoTurn))
}

// A conversation makes a case only of a turn the model answered: a question alone, whose run failed or still
// goes on, is no turn, nor is a conversation without a question.
func TestFromMessagesNoTurn(t *testing.T) {
	user := chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "Is ticket 4711 open?"}}}
	answer := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "It is."}}}
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want string // "" when a case is made
	}{
		{"empty", nil, "no user message with text"},
		{"the model alone", []chat.Message{answer}, "no user message with text"},
		{"a question unanswered", []chat.Message{user}, "the model has not answered"},
		{"an earlier turn, the last unanswered", []chat.Message{user, answer, user}, "the model has not answered"},
		{"an answered turn", []chat.Message{user, answer}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c, err := eval.FromMessages(tc.msgs)
			if tc.want == "" {
				is.NoErr(err)
				is.Equal(c.Expect.Answer.Reference, "It is.")
				return
			}
			is.True(errors.Is(err, eval.ErrNoTurn))
			is.True(strings.Contains(err.Error(), tc.want))
		})
	}
}

// A stored conversation whose close waited for approval and ran once approved: its entries keep the request, so
// the case FromEntries (and FromConversation) makes waits for it and approves it, although the history a next
// run continues from no longer holds it.
func TestFromEntriesKeepsApprovals(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	host, err := agent.NewHost(&Support{}, agent.Config{
		Toolsets: []toolset.Source{&ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}},
		Client: chattest.NewScript(
			chattest.Calls(chattest.Call("call_1", "close_ticket", `{"number":4711,"reason":"Fixed."}`)),
			chattest.Text("Ticket 4711 is closed.")),
		Store: store,
	})
	is.NoErr(err)
	first, err := host.Run(t.Context(), agent.Text("Close ticket 4711"), agent.SettingsID("tenant-42"), agent.Conversation("c-1"))
	is.NoErr(err)
	is.Equal(len(first.Pending), 1)
	_, err = host.Run(t.Context(), agent.Approve(first.Pending[0].ID), agent.SettingsID("tenant-42"), agent.Conversation("c-1"))
	is.NoErr(err)

	entries, err := store.LoadAll(t.Context(), "tenant-42", "c-1")
	is.NoErr(err)
	made, err := eval.FromEntries(entries)
	is.NoErr(err)
	is.Equal(made.Text, "Close ticket 4711")
	is.Equal(*made.Expect.Approvals, []string{"close_ticket"})
	is.True(made.Approve != nil && *made.Approve)
	is.Equal(made.Expect.Trajectory.Calls[0].String(), `close_ticket(number=4711, reason="Fixed.")`)
	is.Equal(made.Expect.Answer.Reference, "Ticket 4711 is closed.")

	// FromConversation reads the same entries, under the tenant's wall.
	fromHost, err := eval.FromConversation(t.Context(), host, "tenant-42", "c-1")
	is.NoErr(err)
	is.Equal(*fromHost.Expect.Approvals, []string{"close_ticket"})
	is.True(fromHost.Approve != nil && *fromHost.Approve)
	is.Equal(fromHost.SettingsID, "tenant-42")
	_, err = eval.FromConversation(t.Context(), host, "tenant-43", "c-1")
	is.True(errors.Is(err, storage.ErrNotFound))
}
