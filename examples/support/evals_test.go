package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/cassette"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestEvals runs the support agent's eval suite, testdata/evals, each case on a real host of Support:
//
//   - by default, replayed from testdata/cassettes through the OpenAI SDK, offline;
//   - with TYPESHIFT_RECORD=1, recorded again: against the OpenAI API (or OPENAI_BASE_URL) when OPENAI_API_KEY
//     is set, or else against the offline model served in the Chat Completions wire format (wire_test.go),
//     which is how the committed cassettes were made;
//   - with TYPESHIFT_EVAL_LIVE=1, live against the model the environment names (see provider), with no
//     cassette; TYPESHIFT_EVAL_K=5 then runs each case five times (pass@k).
//
// The host prices its runs with package budget's price table, which the cases' max_cost limits are checked
// against, in US dollars.
//
// typeshift eval runs it and compares its results with an earlier run's.
func TestEvals(t *testing.T) {
	cases, err := eval.Load(os.DirFS("testdata"), "evals")
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	ins := telemetry.New(&telemetry.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
	eval.RunCases(t, cases, func(t *testing.T, c *eval.Case) *agent.Host {
		return evalHost(t, c, ins)
	}, &eval.Options{Spans: spans.Ended})
}

// evalHost returns a host of Support over fresh sample tickets, whose model is the case's cassette, or the live
// model.
func evalHost(t *testing.T, c *eval.Case, ins *telemetry.Instrumentation) *agent.Host {
	t.Helper()
	cfg := agent.Config{
		Toolsets:  []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Telemetry: ins,
		Meter:     budget.New(nil), // prices each model call from the table the package ships
	}
	if eval.Live() {
		var o options
		o.provider, o.model = provider()
		useModel(&cfg, o, io.Discard, true)
	} else {
		rec := cassette.New(t, filepath.Join("testdata", "cassettes", c.Name+".txt"), nil)
		opts := []option.RequestOption{option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0)}
		switch {
		case rec.Mode() == cassette.Replay:
			opts = append(opts, option.WithBaseURL("http://127.0.0.1:1"), option.WithAPIKey("sk-replay")) // never dialled
		case !openai.Available(): // recording without a key: the offline model, on the wire
			opts = append(opts, option.WithBaseURL(offlineServer(t).URL), option.WithAPIKey("sk-offline"))
		} // recording with a key: the SDK reads OPENAI_API_KEY and OPENAI_BASE_URL
		cfg.Client = openai.New(opts...).WithModel("gpt-4.1-mini")
	}
	host, err := agent.NewHost(&Support{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return host
}

// A rule added that approves every close_ticket call fails the close_waits case, run on the offline model, and
// the reasons say what went wrong: nothing waited, the close ran, and the model was called once more.
func TestEvalsCatchUnguardedClose(t *testing.T) {
	cases, err := eval.Load(os.DirFS("testdata"), "evals")
	if err != nil {
		t.Fatal(err)
	}
	var waits *eval.Case
	for _, c := range cases {
		if c.Name == "close_waits" {
			waits = c
		}
	}
	for _, tc := range []struct {
		name   string
		rules  []agent.Rule
		passed bool
		scores []string
	}{
		{"as declared", nil, true, nil},
		{"close approved by a rule", []agent.Rule{agent.AllowTool(tickets.TicketsCloseTicketID)}, false, []string{
			"approvals 0.00: expected the run to wait for approval of close_ticket, it waited for nothing",
			"rounds 0.50: 2 model calls, more than 1",
			"tools_executed 0.00: expected the tools nothing to run, the spans show close_ticket",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			spans := tracetest.NewSpanRecorder()
			ins := telemetry.New(&telemetry.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
			host, err := agent.NewHost(&Support{}, agent.Config{
				Toolsets:  []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
				Client:    offlineModel(),
				Telemetry: ins,
				Rules:     tc.rules,
			})
			is.NoErr(err)
			res, err := eval.Evaluate(t.Context(), host, waits, &eval.Options{Spans: spans.Ended})
			is.NoErr(err)
			is.Equal(res.Passed, tc.passed)
			var got []string
			for _, s := range res.Scores {
				if s.Value < 1 {
					got = append(got, fmt.Sprintf("%s %.2f: %s", s.Name, s.Value, s.Reason))
				}
			}
			is.Equal(got, tc.scores)
		})
	}
}
