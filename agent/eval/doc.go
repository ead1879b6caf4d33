// Package eval scores an agent on cases kept as files, each run as a subtest of go test against a real
// [agent.Host], offline from the cassettes of package [github.com/typeshift-go/typeshift/agent/cassette].
//
// A case is a JSON file: the input, the tenant and its settings, and what the run must do.
//
//	{
//	  "description": "A question about one ticket reads that ticket, and only it.",
//	  "text": "Is ticket 4711 open?",
//	  "settings_id": "tenant-42",
//	  "expect": {
//	    "trajectory": {"match": "exact", "calls": [{"tool": "get_ticket", "arguments": {"number": 4711}}]},
//	    "not_called": ["close_ticket"],
//	    "approvals": [],
//	    "answer": {"contains": ["open"], "regex": "4711", "schema": null},
//	    "max_rounds": 2,
//	    "max_tokens": 4000
//	  }
//	}
//
// A test loads a directory of cases and runs them, each on a host whose model replays the case's cassette:
//
//	func TestSupportEvals(t *testing.T) {
//		cases, err := eval.Load(os.DirFS("testdata"), "evals")
//		if err != nil {
//			t.Fatal(err)
//		}
//		eval.RunCases(t, cases, func(t *testing.T, c *eval.Case) *agent.Host {
//			rec := cassette.New(t, "testdata/cassettes/"+c.Name+".txt", nil)
//			client := openai.New(option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0))
//			host, err := agent.NewHost(&Support{}, agent.Config{Client: client, Toolsets: ...})
//			...
//			return host
//		}, nil)
//	}
//
// # Scorers
//
// Each expectation a case sets is one scorer, which gives a [Score] from 0 to 1 with its reason:
// tool_trajectory_avg_score (the share of the expected calls made, as Trajectory.Match asks; exact also
// counts extra calls against it), tools_not_called, approvals (the calls the first run waits on, in order),
// response_match_score (the share of the answer's checks that hold: contains, not_contains, regex, JSON
// Schema, a reference answer by ROUGE-1), rounds, tokens and cost (1 within the limit, limit/actual past it;
// the cost at a [Price], or as the host's budget meter priced the runs), plan_mode (in plan mode, only
// read-only tools called, and a plan proposed or not, as [Plan] asks), tools_executed and tool_errors (from the
// run's OpenTelemetry spans, [Options.Spans]), and rubric, scored by a judge model through any chat.Client
// ([Options.Judge]). A case passes when each score reaches its threshold: 1, unless Case.Thresholds lowers it.
// The names of ADK's metrics are used where they measure the same thing.
//
// With "approve": true (or false), a run that ends waiting for approvals is answered and run again once; the
// trajectory, the answer and the limits then hold for both runs.
//
// # Repeated runs, comparisons, cases from conversations
//
// A case with "repeat": {"k": 5} runs five times and passes when one run passes (pass@k), or when the share
// "min_pass_rate" of them does; [Options.Repeat] (or TYPESHIFT_EVAL_K in a live run, see [Live]) repeats every
// case. [Compare] matches two result files case by case and names what regressed and by how much; the typeshift
// eval command runs the suites and compares. [FromMessages] and [FromConversation] make a case of a stored
// conversation's last turn, to edit and keep.
package eval
