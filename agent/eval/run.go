package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// Result is a case's outcome.
type Result struct {
	Case   string  `json:"case"`
	Passed bool    `json:"passed"`
	Reason string  `json:"reason,omitempty"`
	Scores []Score `json:"scores"`
	// Run is what the run did; nil when it failed.
	Run *Run `json:"-"`
}

// Evaluate runs c on host and scores what the run did; opts may be nil. An error of the run is returned as such:
// a case whose run fails has no scores.
func Evaluate(ctx context.Context, host *agent.Host, c *Case, o *Options) (*Result, error) {
	if o == nil {
		o = &Options{}
	}
	if c.Expect.Rubric != nil && o.Judge == nil {
		return nil, fmt.Errorf("eval: case %s has a rubric and no judge (Options.Judge)", c.Name)
	}
	opts := []agent.RunOption{}
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
	res, err := host.Run(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("eval: case %s: %w", c.Name, err)
	}
	r := &Run{Pending: res.Pending}
	r.add(res)
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
	r.Answer = res.Text()
	out := &Result{Case: c.Name, Scores: c.Score(r), Run: r}
	if c.Expect.Rubric != nil {
		out.Scores = append(out.Scores, c.Judge(ctx, o.Judge, r))
	}
	out.Passed, out.Reason = c.Passed(out.Scores)
	return out, nil
}

// add reads a run's new messages: its calls and model calls. A call that waited for approval counts once, where
// the model made it: the next run's copy of it, written when the answer let it run, is no model call.
func (r *Run) add(res *agent.Result) {
	r.Usage = r.Usage.Add(res.Usage)
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

// RunCases runs each case as a subtest of t named after it, on the host newHost builds for that subtest (over
// a cassette of its own, typically), with opts (which may be nil), and fails the subtest with the first score under its threshold. It returns
// the results, for a report.
func RunCases(t *testing.T, cases []*Case, newHost func(t *testing.T, c *Case) *agent.Host, opts *Options) []Result {
	t.Helper()
	var results []Result
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res, err := Evaluate(t.Context(), newHost(t, c), c, opts)
			if err != nil {
				results = append(results, Result{Case: c.Name, Reason: err.Error()})
				t.Fatal(err)
			}
			results = append(results, *res)
			for _, s := range res.Scores {
				t.Logf("%s %.2f: %s", s.Name, s.Value, s.Reason)
			}
			if !res.Passed {
				t.Errorf("case %s (%s) failed: %s", c.Name, c.File(), res.Reason)
			}
		})
	}
	return results
}
