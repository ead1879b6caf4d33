package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
)

// A Score is one scorer's judgement of a case's run: a value from 0 to 1 and the reason for it.
type Score struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Reason string  `json:"reason"`
}

// The scorers' names. Where an ADK metric measures the same thing its name is used, so results compare.
const (
	ScoreTrajectory = "tool_trajectory_avg_score"
	ScoreNotCalled  = "tools_not_called"
	ScoreApprovals  = "approvals"
	ScoreAnswer     = "response_match_score"
	ScoreRounds     = "rounds"
	ScoreTokens     = "tokens"
	ScoreCost       = "cost"
	ScorePlan       = "plan_mode"
	ScoreExecuted   = "tools_executed"
	ScoreToolErrors = "tool_errors"
)

// Run is what a case's run did, as the scorers read it.
type Run struct {
	// Calls are the tool calls the model made, in order.
	Calls []chat.ToolCall
	// Pending are the calls the first run ended waiting for approval on.
	Pending []chat.ApprovalRequest
	// Answer is the final answer's text.
	Answer string
	// Typed is the typed answer the run accepted (agent.Result.Answer), for an agent that declares an answer
	// type; nil otherwise.
	Typed json.RawMessage
	// Rounds counts the model calls; Usage adds up their tokens.
	Rounds int
	Usage  chat.Usage
	// PlanCalls are the calls the model made in plan mode, ReadOnly the tools the host offers as read-only,
	// and Plan the plan the model proposed (exit_plan_mode's "plan" argument), when it did.
	PlanCalls []chat.ToolCall
	ReadOnly  map[string]bool
	Plan      *string
	// Spans are the OpenTelemetry spans of the case's runs (see [Options.Spans]), in the order they ended.
	Spans []sdktrace.ReadOnlySpan
	// Cost is what the runs cost as the host's Config.Meter priced them (package agent/budget): zero without a
	// meter.
	Cost agent.Cost
}

// Score runs every scorer whose expectation the case sets over what the run did.
func (c *Case) Score(r *Run) []Score {
	e := c.Expect
	var out []Score
	if e.Trajectory != nil {
		out = append(out, scoreTrajectory(e.Trajectory, r.Calls))
	}
	if len(e.NotCalled) > 0 {
		out = append(out, scoreNotCalled(e.NotCalled, r.Calls))
	}
	if e.Approvals != nil {
		out = append(out, scoreApprovals(*e.Approvals, r.Pending))
	}
	if e.Answer != nil {
		out = append(out, scoreAnswer(e.Answer, r.Answer))
	}
	if len(e.Fields) > 0 {
		out = append(out, scoreFields(e.Fields, r.Typed))
	}
	if e.MaxRounds > 0 {
		out = append(out, scoreLimit(ScoreRounds, "model calls", int64(r.Rounds), int64(e.MaxRounds)))
	}
	if e.MaxTokens > 0 {
		total := r.Usage.TotalTokens
		if total == 0 {
			total = r.Usage.InputTokens + r.Usage.OutputTokens
		}
		out = append(out, scoreLimit(ScoreTokens, "tokens", total, e.MaxTokens))
	}
	if e.MaxCost > 0 {
		out = append(out, scoreCost(c.Price, r, e.MaxCost))
	}
	if e.Plan != nil {
		out = append(out, scorePlan(e.Plan, r))
	}
	if e.Spans != nil {
		out = append(out, scoreSpans(e.Spans, r.Spans)...)
	}
	return out
}

// Passed reports whether every score reaches its threshold (1 unless the case sets one), and names the first
// that does not.
func (c *Case) Passed(scores []Score) (bool, string) {
	for _, s := range scores {
		want := 1.0
		if v, ok := c.Thresholds[s.Name]; ok {
			want = v
		}
		if s.Value < want {
			return false, fmt.Sprintf("%s %.2f < %.2f: %s", s.Name, s.Value, want, s.Reason)
		}
	}
	return true, ""
}

// matches reports whether the model's call is the expected one: same tool, and each listed argument equal.
func (c Call) matches(got chat.ToolCall) bool {
	if c.Tool != got.Name {
		return false
	}
	if len(c.Arguments) == 0 {
		return true
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(got.Arguments, &args) != nil {
		return false
	}
	for k, want := range c.Arguments {
		v, ok := args[k]
		if !ok || !sameJSON(want, v) {
			return false
		}
	}
	return true
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x) // maps marshal with sorted keys: equal values give equal bytes
	yb, _ := json.Marshal(y)
	return bytes.Equal(xa, yb)
}

func showCall(c chat.ToolCall) string { return c.Name + " " + compact(c.Arguments) }

func showCalls(cs []chat.ToolCall) string {
	if len(cs) == 0 {
		return "no calls"
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = showCall(c)
	}
	return strings.Join(s, "; ")
}

// scoreTrajectory gives the share of the expected calls the model made as the match asks; exact also asks for
// no other call.
func scoreTrajectory(t *Trajectory, got []chat.ToolCall) Score {
	s := Score{Name: ScoreTrajectory}
	want := t.Calls
	if len(want) == 0 {
		if len(got) == 0 || t.Match == MatchInOrder || t.Match == MatchAnyOrder {
			return Score{Name: ScoreTrajectory, Value: 1, Reason: "no calls expected"}
		}
		return Score{Name: ScoreTrajectory, Reason: "expected no tool calls, got " + showCalls(got)}
	}
	matched := 0
	var miss string
	switch t.Match {
	case MatchInOrder:
		j := 0
		for _, w := range want {
			for j < len(got) && !w.matches(got[j]) {
				j++
			}
			if j == len(got) {
				if miss == "" {
					miss = fmt.Sprintf("expected %s (call %d of %d, in order) but the model did not make it; it called %s", w, matched+1, len(want), showCalls(got))
				}
				continue
			}
			matched++
			j++
		}
	case MatchAnyOrder:
		used := make([]bool, len(got))
		for _, w := range want {
			found := false
			for j := range got {
				if !used[j] && w.matches(got[j]) {
					used[j], found = true, true
					break
				}
			}
			if found {
				matched++
			} else if miss == "" {
				miss = fmt.Sprintf("expected %s but the model did not make it; it called %s", w, showCalls(got))
			}
		}
	default:
		for i, w := range want {
			switch {
			case i >= len(got):
				if miss == "" {
					miss = fmt.Sprintf("expected call %d to be %s, but the model made only %d calls", i+1, w, len(got))
				}
			case w.matches(got[i]):
				matched++
			default:
				if miss == "" {
					miss = fmt.Sprintf("expected call %d to be %s, got %s", i+1, w, showCall(got[i]))
				}
			}
		}
		if len(got) > len(want) {
			if miss == "" {
				miss = fmt.Sprintf("expected %d calls, got %d; the first extra is %s", len(want), len(got), showCall(got[len(want)]))
			}
			// Extra calls count against an exact trajectory as misses.
			s.Value = float64(matched) / float64(len(got))
			s.Reason = miss
			return s
		}
	}
	s.Value = float64(matched) / float64(len(want))
	s.Reason = miss
	if s.Reason == "" {
		s.Reason = fmt.Sprintf("%d of %d expected calls (%s)", matched, len(want), matchName(t.Match))
	}
	return s
}

func matchName(m string) string {
	if m == "" {
		return MatchExact
	}
	return m
}

func scoreNotCalled(tools []string, got []chat.ToolCall) Score {
	var bad []string
	for _, t := range tools {
		for _, c := range got {
			if c.Name == t {
				bad = append(bad, showCall(c))
				break
			}
		}
	}
	if len(bad) == 0 {
		return Score{Name: ScoreNotCalled, Value: 1, Reason: "none of " + strings.Join(tools, ", ") + " was called"}
	}
	return Score{Name: ScoreNotCalled, Value: 1 - float64(len(bad))/float64(len(tools)),
		Reason: "called what it must not: " + strings.Join(bad, "; ")}
}

func scoreApprovals(want []string, pending []chat.ApprovalRequest) Score {
	got := make([]string, len(pending))
	for i, p := range pending {
		got[i] = p.Call.Name
	}
	if strings.Join(want, ",") == strings.Join(got, ",") {
		if len(want) == 0 {
			return Score{Name: ScoreApprovals, Value: 1, Reason: "no call waits for approval"}
		}
		return Score{Name: ScoreApprovals, Value: 1, Reason: "waiting for approval: " + strings.Join(got, ", ")}
	}
	w, g := "nothing", "nothing"
	if len(want) > 0 {
		w = strings.Join(want, ", ")
	}
	if len(got) > 0 {
		g = strings.Join(got, ", ")
	}
	return Score{Name: ScoreApprovals, Reason: "expected the run to wait for approval of " + w + ", it waited for " + g}
}

// scoreAnswer gives the share of the answer's checks that hold.
func scoreAnswer(a *Answer, text string) Score {
	checks, passed := 0, 0
	var fails []string
	lower := strings.ToLower(text)
	for _, c := range a.Contains {
		checks++
		if strings.Contains(lower, strings.ToLower(c)) {
			passed++
		} else {
			fails = append(fails, fmt.Sprintf("does not contain %q", c))
		}
	}
	for _, c := range a.NotContains {
		checks++
		if !strings.Contains(lower, strings.ToLower(c)) {
			passed++
		} else {
			fails = append(fails, fmt.Sprintf("contains %q", c))
		}
	}
	if a.Regex != "" {
		checks++
		re, err := compileRegex(a.Regex)
		switch {
		case err != nil:
			fails = append(fails, err.Error())
		case re.MatchString(text):
			passed++
		default:
			fails = append(fails, fmt.Sprintf("does not match %s", a.Regex))
		}
	}
	var part float64 // the reference's share, which need not be whole
	if a.Reference != "" {
		checks++
		f := rouge1(a.Reference, text)
		part = f
		if f < 1 {
			fails = append(fails, fmt.Sprintf("shares %.2f of its words with the reference (ROUGE-1 F) %q", f, clip(a.Reference)))
		}
	}
	if len(a.Schema) > 0 {
		checks++
		if err := validate(a.Schema, text); err != nil {
			fails = append(fails, err.Error())
		} else {
			passed++
		}
	}
	if checks == 0 {
		return Score{Name: ScoreAnswer, Value: 1, Reason: "no checks"}
	}
	s := Score{Name: ScoreAnswer, Value: (float64(passed) + part) / float64(checks)}
	if len(fails) == 0 {
		s.Reason = fmt.Sprintf("%d of %d checks hold", checks, checks)
	} else {
		s.Reason = fmt.Sprintf("the answer %s: %q", strings.Join(fails, "; "), clip(text))
	}
	return s
}

func scoreLimit(name, what string, got, limit int64) Score {
	if got <= limit {
		return Score{Name: name, Value: 1, Reason: fmt.Sprintf("%d %s, at most %d", got, what, limit)}
	}
	return Score{Name: name, Value: float64(limit) / float64(got), Reason: fmt.Sprintf("%d %s, more than %d", got, what, limit)}
}

// scoreCost checks the runs' cost: at the case's price when it has one, or as the host's meter priced the runs.
func scoreCost(p *Price, r *Run, limit float64) Score {
	var cost float64
	var what string
	switch {
	case p != nil:
		cost = p.Cost(r.Usage)
		what = fmt.Sprintf("%d input and %d output tokens cost %.6g", r.Usage.InputTokens, r.Usage.OutputTokens, cost)
	case r.Cost.Unpriced > 0:
		return Score{Name: ScoreCost, Reason: fmt.Sprintf("%d model calls have no price in the host's price table, so the cost is unknown", r.Cost.Unpriced)}
	case r.Cost.Currency != "":
		cost = r.Cost.Amount()
		what = fmt.Sprintf("%d input and %d output tokens cost %.6g %s as the host priced them", r.Usage.InputTokens, r.Usage.OutputTokens, cost, r.Cost.Currency)
	default:
		return Score{Name: ScoreCost, Reason: "max_cost is set but no price is given (the case's price, Options.Price, or a host whose Config.Meter prices its runs)"}
	}
	if cost <= limit {
		return Score{Name: ScoreCost, Value: 1, Reason: fmt.Sprintf("%s, at most %.6g", what, limit)}
	}
	return Score{Name: ScoreCost, Value: limit / cost, Reason: fmt.Sprintf("%s, more than %.6g", what, limit)}
}

// scorePlan gives the share of plan mode's checks that hold: no call of a tool that is not read-only, a plan
// proposed or not as asked, and the plan's texts.
func scorePlan(p *Plan, r *Run) Score {
	checks, passed := 2, 0
	var fails []string
	var bad []string
	for _, c := range r.PlanCalls {
		if c.Name != agent.ExitPlanModeTool && !r.ReadOnly[c.Name] {
			bad = append(bad, showCall(c))
		}
	}
	if len(bad) == 0 {
		passed++
	} else {
		fails = append(fails, "called tools that are not read-only in plan mode: "+strings.Join(bad, "; "))
	}
	switch {
	case p.Proposed == (r.Plan != nil):
		passed++
	case p.Proposed:
		fails = append(fails, "proposed no plan (no "+agent.ExitPlanModeTool+" call)")
	default:
		fails = append(fails, fmt.Sprintf("proposed a plan it should not have: %q", clip(*r.Plan)))
	}
	if len(p.Contains) > 0 && r.Plan != nil {
		lower := strings.ToLower(*r.Plan)
		for _, want := range p.Contains {
			checks++
			if strings.Contains(lower, strings.ToLower(want)) {
				passed++
			} else {
				fails = append(fails, fmt.Sprintf("the plan does not contain %q", want))
			}
		}
	}
	s := Score{Name: ScorePlan, Value: float64(passed) / float64(checks)}
	if len(fails) == 0 {
		s.Reason = fmt.Sprintf("%d calls in plan mode, all read-only", len(r.PlanCalls))
		if r.Plan != nil {
			s.Reason += "; a plan was proposed"
		}
		return s
	}
	s.Reason = strings.Join(fails, "; ")
	return s
}

// scoreSpans reads the execute_tool spans: the tools that ran, in the order they started, and those that failed.
func scoreSpans(want *Spans, spans []sdktrace.ReadOnlySpan) []Score {
	var tools []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if spanAttr(s, telemetry.OperationName) == "execute_tool" {
			tools = append(tools, s)
		}
	}
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].StartTime().Before(tools[j].StartTime()) })
	ran := make([]string, len(tools))
	var failed []string
	for i, s := range tools {
		ran[i] = spanAttr(s, telemetry.ToolName)
		if s.Status().Code == codes.Error {
			failed = append(failed, ran[i]+" ("+s.Status().Description+")")
		}
	}
	var out []Score
	if want.Executed != nil {
		s := Score{Name: ScoreExecuted}
		g, w := strings.Join(ran, ", "), strings.Join(want.Executed, ", ")
		if g == "" {
			g = "nothing"
		}
		if w == "" {
			w = "nothing"
		}
		if slices.Equal(ran, want.Executed) {
			s.Value, s.Reason = 1, "ran "+g
		} else {
			matched := 0
			for i := range min(len(ran), len(want.Executed)) {
				if ran[i] == want.Executed[i] {
					matched++
				}
			}
			s.Value = float64(matched) / float64(max(len(ran), len(want.Executed)))
			s.Reason = "expected the tools " + w + " to run, the spans show " + g
		}
		out = append(out, s)
	}
	if want.MaxToolErrors != nil {
		out = append(out, scoreLimit(ScoreToolErrors, "tool spans ended in an error", int64(len(failed)), int64(*want.MaxToolErrors)))
		if len(failed) > *want.MaxToolErrors {
			out[len(out)-1].Reason += ": " + strings.Join(failed, "; ")
		}
	}
	return out
}

func spanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

func compileRegex(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("answer regex: %w", err)
	}
	return re, nil
}

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("answer schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("answer.json", doc); err != nil {
		return nil, fmt.Errorf("answer schema: %w", err)
	}
	s, err := c.Compile("answer.json")
	if err != nil {
		return nil, fmt.Errorf("answer schema: %w", err)
	}
	return s, nil
}

func validate(schema json.RawMessage, text string) error {
	s, err := compileSchema(schema)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.TrimSpace(text)))
	if err != nil {
		return fmt.Errorf("is not JSON (%v)", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("does not match the schema (%s)", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return nil
}

// rouge1 returns the ROUGE-1 F-measure of a candidate against a reference: the words they share (each counted
// as often as both hold it), over the words of each, combined as a harmonic mean. Words are lower-cased runs of
// letters and digits.
func rouge1(reference, candidate string) float64 {
	ref, cand := words(reference), words(candidate)
	if len(ref) == 0 || len(cand) == 0 {
		if len(ref) == len(cand) {
			return 1
		}
		return 0
	}
	counts := map[string]int{}
	for _, w := range ref {
		counts[w]++
	}
	overlap := 0
	for _, w := range cand {
		if counts[w] > 0 {
			counts[w]--
			overlap++
		}
	}
	if overlap == 0 {
		return 0
	}
	p, r := float64(overlap)/float64(len(cand)), float64(overlap)/float64(len(ref))
	return 2 * p * r / (p + r)
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
