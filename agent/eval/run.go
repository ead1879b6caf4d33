package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
)

// Result is a case's outcome.
type Result struct {
	// Package is the directory of the suite's package, from the module's root ("examples/support"), and Suite
	// the test that called [RunCases] in it.
	Package string  `json:"package,omitempty"`
	Suite   string  `json:"suite,omitempty"`
	Case    string  `json:"case"`
	Passed  bool    `json:"passed"`
	Reason  string  `json:"reason,omitempty"`
	Scores  []Score `json:"scores"`
	// Runs and PassedRuns count the runs of a repeated case (see [Repeat]); both are 0 for a case run once.
	// Its scores are then each scorer's mean over the runs, with the reason of its lowest.
	Runs       int `json:"runs,omitempty"`
	PassedRuns int `json:"passed_runs,omitempty"`
	// Run is what the run did (the first failed run of a repeated case, or its last); nil when it failed.
	Run *Run `json:"-"`
}

// Evaluate runs c on host and scores what the run did; opts may be nil. An error of the run is returned as such:
// a case whose run fails has no scores. A repeated case (see [Repeat]) runs its K times on host, and a run that
// fails counts as a run that did not pass.
func Evaluate(ctx context.Context, host *agent.Host, c *Case, o *Options) (*Result, error) {
	if o == nil {
		o = &Options{}
	}
	if c.Expect.Rubric != nil && o.Judge == nil {
		return nil, fmt.Errorf("eval: case %s has a rubric and no judge (Options.Judge)", c.Name)
	}
	if c.Expect.Spans != nil && o.Spans == nil {
		return nil, fmt.Errorf("eval: case %s expects spans and has no span source (Options.Spans)", c.Name)
	}
	if c.Price == nil && o.Price != nil {
		cc := *c
		cc.Price = o.Price
		c = &cc
	}
	k, rate := 1, 0.0
	if c.Repeat != nil {
		k, rate = c.Repeat.K, c.Repeat.MinPassRate
	}
	if o.Repeat > 0 {
		k = o.Repeat
	}
	if c.Repeat == nil && o.Repeat <= 0 {
		return evaluateOnce(ctx, host, c, o)
	}
	runs := make([]*Result, 0, k)
	for range k {
		r, err := evaluateOnce(ctx, host, c, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			r = &Result{Case: c.Name, Reason: err.Error()}
		}
		runs = append(runs, r)
	}
	return combine(c.Name, runs, rate), nil
}

// combine makes one result of a repeated case's runs: it passes when at least the share rate of them passed
// (one, when rate is 0).
func combine(name string, runs []*Result, rate float64) *Result {
	k := len(runs)
	need := 1
	if rate > 0 {
		need = int(math.Ceil(rate*float64(k) - 1e-9))
	}
	out := &Result{Case: name, Runs: k}
	type agg struct {
		sum    float64
		low    float64
		reason string
	}
	byName := map[string]*agg{}
	var order []string
	var firstFail *Result
	firstFailAt := 0
	for i, r := range runs {
		if r.Passed {
			out.PassedRuns++
		} else if firstFail == nil {
			firstFail, firstFailAt = r, i+1
		}
		for _, s := range r.Scores {
			a := byName[s.Name]
			if a == nil {
				a = &agg{low: 2}
				byName[s.Name] = a
				order = append(order, s.Name)
			}
			a.sum += s.Value
			if s.Value < a.low {
				a.low, a.reason = s.Value, fmt.Sprintf("run %d of %d: %s", i+1, k, s.Reason)
			}
		}
	}
	for _, n := range order {
		a := byName[n]
		out.Scores = append(out.Scores, Score{Name: n, Value: a.sum / float64(k), Reason: a.reason})
	}
	out.Passed = out.PassedRuns >= need
	out.Run = runs[k-1].Run
	if firstFail != nil {
		out.Run = firstFail.Run
	}
	if !out.Passed {
		out.Reason = fmt.Sprintf("%d of %d runs passed, %d needed; run %d: %s", out.PassedRuns, k, need, firstFailAt, firstFail.Reason)
	}
	return out
}

// evaluateOnce runs the case once, with the approval answers it asks for, and scores it.
func evaluateOnce(ctx context.Context, host *agent.Host, c *Case, o *Options) (*Result, error) {
	opts := []agent.RunOption{}
	if len(c.History) > 0 {
		opts = append(opts, agent.Messages(slices.Clone(c.History)))
	}
	if len(c.Messages) > 0 {
		opts = append(opts, agent.Input(c.Messages...))
	} else {
		opts = append(opts, agent.Text(c.Text))
	}
	if c.SettingsID != "" {
		opts = append(opts, agent.SettingsID(c.SettingsID))
	}
	if len(c.Settings) > 0 {
		opts = append(opts, agent.RunSettings(c.Settings))
	}
	if c.Mode != "" {
		opts = append(opts, agent.Mode(c.Mode))
	}
	spansBefore := 0
	if o.Spans != nil {
		spansBefore = len(o.Spans())
	}
	res, err := host.Run(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("eval: case %s: %w", c.Name, err)
	}
	r := &Run{Pending: res.Pending}
	r.add(res)
	if c.Mode == agent.ModePlan {
		if err := r.planMode(ctx, host, c.SettingsID); err != nil {
			return nil, fmt.Errorf("eval: case %s: %w", c.Name, err)
		}
	}
	if c.Approve != nil && res.Waiting() {
		next := []agent.RunOption{agent.Messages(res.Messages), agent.Mode(res.Mode)}
		if c.SettingsID != "" {
			next = append(next, agent.SettingsID(c.SettingsID))
		}
		if len(c.Settings) > 0 {
			next = append(next, agent.RunSettings(c.Settings))
		}
		for _, p := range res.Pending {
			next = append(next, agent.Answer(chat.ApprovalAnswer{RequestID: p.ID, Approved: *c.Approve}))
		}
		res, err = host.Run(ctx, next...)
		if err != nil {
			return nil, fmt.Errorf("eval: case %s, after the approval answers: %w", c.Name, err)
		}
		r.add(res)
	}
	r.Answer, r.Typed = res.Text(), res.Answer
	if o.Spans != nil {
		r.Spans = runSpans(o.Spans(), spansBefore)
	}
	out := &Result{Case: c.Name, Scores: c.Score(r), Run: r}
	if c.Expect.Rubric != nil {
		out.Scores = append(out.Scores, c.Judge(ctx, o.Judge, r))
	}
	out.Passed, out.Reason = c.Passed(out.Scores)
	return out, nil
}

// planMode notes the calls the first run made in plan mode, the plan it proposed, and the tools the host offers
// as read-only.
func (r *Run) planMode(ctx context.Context, host *agent.Host, settingsID string) error {
	r.PlanCalls = slices.Clone(r.Calls)
	tools, err := host.OfferedTools(ctx, settingsID)
	if err != nil {
		return err
	}
	r.ReadOnly = map[string]bool{}
	for _, t := range tools {
		if t.ReadOnly {
			r.ReadOnly[t.Name] = true
		}
	}
	for _, c := range r.PlanCalls {
		if c.Name != agent.ExitPlanModeTool {
			continue
		}
		var args struct {
			Plan string `json:"plan"`
		}
		_ = json.Unmarshal(c.Arguments, &args)
		r.Plan = &args.Plan
	}
	return nil
}

// runSpans returns the spans ended after the first skip that belong to a trace of a run: one with an
// invoke_agent span.
func runSpans(all []sdktrace.ReadOnlySpan, skip int) []sdktrace.ReadOnlySpan {
	if skip > len(all) {
		skip = 0 // the source was reset
	}
	fresh := all[skip:]
	traces := map[trace.TraceID]bool{}
	for _, s := range fresh {
		if spanAttr(s, telemetry.OperationName) == "invoke_agent" {
			traces[s.SpanContext().TraceID()] = true
		}
	}
	var out []sdktrace.ReadOnlySpan
	for _, s := range fresh {
		if traces[s.SpanContext().TraceID()] {
			out = append(out, s)
		}
	}
	return out
}

// add reads a run's new messages: its calls and model calls. A call that waited for approval counts once, where
// the model made it: the next run's copy of it, written when the answer let it run, is no model call.
func (r *Run) add(res *agent.Result) {
	r.Usage = r.Usage.Add(res.Usage)
	r.Cost.Nanos += res.Cost.Nanos
	r.Cost.Unpriced += res.Cost.Unpriced
	if res.Cost.Currency != "" {
		r.Cost.Currency = res.Cost.Currency
	}
	seen := map[string]bool{}
	for _, c := range r.Calls {
		seen[c.ID] = true
	}
	for _, m := range res.New {
		if m.Role != chat.RoleAssistant {
			continue
		}
		fresh := len(m.Parts) == 0
		for _, p := range m.Parts {
			var call chat.ToolCall
			switch p := p.(type) {
			case chat.ToolCall:
				call = p
			case chat.ApprovalRequest:
				call = p.Call
			default:
				fresh = true
				continue
			}
			if call.ID != "" && seen[call.ID] {
				continue
			}
			seen[call.ID] = true
			r.Calls = append(r.Calls, call)
			fresh = true
		}
		if fresh {
			r.Rounds++
		}
	}
}

// The environment variables of a suite's run, which typeshift eval sets.
const (
	// EnvResults names a directory where [RunCases] writes each suite's results as JSON, in a file named after
	// the suite's test ("TestEvals.json").
	EnvResults = "TYPESHIFT_EVAL_RESULTS"
	// EnvLive, set to 1 or true, asks the suites to run against the live model, neither replaying nor
	// recording; see [Live].
	EnvLive = "TYPESHIFT_EVAL_LIVE"
	// EnvRepeat, in a live run, runs every case that many times (pass@k; see [Options.Repeat]).
	EnvRepeat = "TYPESHIFT_EVAL_K"
)

// Live reports whether [EnvLive] asks for live runs. A suite's host builder reads it to give its host the real
// provider's client, without a cassette.
func Live() bool {
	v := strings.ToLower(os.Getenv(EnvLive))
	return v == "1" || v == "true"
}

// RunCases runs each case as a subtest of t named after it, on the host newHost builds for that subtest (over
// a cassette of its own, typically), with opts (which may be nil), and fails the subtest with the first score
// under its threshold. It returns the results, for a report; a case whose subtest failed before its scores
// (a missing cassette, a failed run) has a result that did not pass. With [EnvResults] set it also writes them
// there. In a live run ([Live]) with [EnvRepeat] set and no Options.Repeat, every case runs that many times.
func RunCases(t *testing.T, cases []*Case, newHost func(t *testing.T, c *Case) *agent.Host, opts *Options) []Result {
	t.Helper()
	var results []Result
	suite, pkg := t.Name(), packageDir()
	if k, err := strconv.Atoi(os.Getenv(EnvRepeat)); err == nil && k > 0 && Live() && (opts == nil || opts.Repeat == 0) {
		o := Options{}
		if opts != nil {
			o = *opts
		}
		o.Repeat = min(k, maxRepeat)
		opts = &o
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			// A helper here too, so that the subtest's failures are reported at the line that called RunCases.
			t.Helper()
			done := false
			defer func() {
				if !done {
					results = append(results, Result{Suite: suite, Case: c.Name,
						Reason: "the case stopped before its scores: see the test's log"})
				}
			}()
			res, err := Evaluate(t.Context(), newHost(t, c), c, opts)
			if err != nil {
				results = append(results, Result{Package: pkg, Suite: suite, Case: c.Name, Reason: err.Error()})
				done = true
				t.Fatal(err)
			}
			res.Package, res.Suite = pkg, suite
			results = append(results, *res)
			done = true
			for _, s := range res.Scores {
				t.Logf("%s %.2f: %s", s.Name, s.Value, s.Reason)
			}
			if !res.Passed {
				t.Errorf("case %s (%s) failed: %s", c.Name, c.File(), res.Reason)
			}
		})
	}
	if dir := os.Getenv(EnvResults); dir != "" {
		if err := writeResults(dir, pkg+"/"+suite, results); err != nil {
			t.Errorf("eval: writing the results to %s: %v", EnvResults, err)
		}
	}
	return results
}

// packageDir returns the directory go test runs a package's tests in, relative to its module's root, with
// forward slashes; "" when there is no go.mod above it.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return ""
			}
			return filepath.ToSlash(rel)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// writeResults writes a suite's results to dir as JSON, in a file named after the package and the suite.
func writeResults(dir, suite string, results []Result) error {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == '.' || r < ' ' {
			return '_'
		}
		return r
	}, suite)
	var b bytes.Buffer
	if err := WriteJSON(&b, results); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".json"), b.Bytes(), 0o644)
}
