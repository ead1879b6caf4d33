package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// A Case is one eval case: what the agent is asked, as which tenant, and what it must do. Cases are JSON files
// (see the package documentation for an example).
type Case struct {
	// Name names the case's subtest; "" means the file's name without .json.
	Name string `json:"name,omitempty"`
	// Description says what the case checks, for the person reading a failure.
	Description string `json:"description,omitempty"`
	// Text is the user's question. Messages, when set, are the run's input instead (images and documents as
	// file parts, in the JSON form of [chat.Message]).
	Text     string         `json:"text,omitempty"`
	Messages []chat.Message `json:"messages,omitempty"`
	// History is the conversation before the input, in the same form: the earlier turns of a case made from a
	// stored conversation.
	History []chat.Message `json:"history,omitempty"`
	// SettingsID is the tenant the run is for; Settings the run's own settings document (the agent's settings
	// JSON); Mode the mode it starts in ("plan", "auto", ...).
	SettingsID string          `json:"settings_id,omitempty"`
	Settings   json.RawMessage `json:"settings,omitempty"`
	Mode       string          `json:"mode,omitempty"`
	// Approve, when set, answers every call the run waits for, approving (true) or rejecting (false) it, and
	// runs the agent again with the answers, once; the expectations then hold for both runs together, the
	// approvals for the first.
	Approve *bool `json:"approve,omitempty"`
	// Expect is what the run must do.
	Expect Expect `json:"expect"`
	// Thresholds are the lowest score each scorer may give for the case to pass, by the scorer's name; a
	// scorer not listed must give 1.
	Thresholds map[string]float64 `json:"thresholds,omitempty"`
	// Repeat runs the case several times (see [Repeat]); nil runs it once.
	Repeat *Repeat `json:"repeat,omitempty"`
	// Price is what the model's tokens cost, for Expect.MaxCost; nil takes [Options.Price], and without one the
	// cost the host's Config.Meter puts on the runs (package agent/budget's price table).
	Price *Price `json:"price,omitempty"`

	file       string
	answeredBy string // the agent whose message holds the reference answer, in a case made from a conversation
}

// File is the name of the file the case was read from.
func (c *Case) File() string { return c.file }

// Expect is what a case's run must do. Every field is optional; a scorer runs only when its field is set.
type Expect struct {
	// Trajectory is the tool calls the model must make.
	Trajectory *Trajectory `json:"trajectory,omitempty"`
	// NotCalled names tools the model must not call.
	NotCalled []string `json:"not_called,omitempty"`
	// Approvals names, in order, the tools whose calls the first run must end waiting for approval on; an
	// empty list (not null) says no call may wait.
	Approvals *[]string `json:"approvals,omitempty"`
	// Answer is what the final answer must hold.
	Answer *Answer `json:"answer,omitempty"`
	// Fields check fields of the run's typed answer, for an agent that declares an answer type (see [Field]).
	Fields []Field `json:"fields,omitempty"`
	// MaxRounds bounds the model calls of the case; MaxTokens the tokens of all of them (input and output).
	MaxRounds int   `json:"max_rounds,omitempty"`
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// MaxCost bounds what the case's tokens cost, in the currency of the price (the case's Price, or
	// [Options.Price], or the host meter's price table).
	MaxCost float64 `json:"max_cost,omitempty"`
	// Plan is what a case that starts in plan mode must do there.
	Plan *Plan `json:"plan,omitempty"`
	// Spans is what the run's OpenTelemetry spans must show (see [Options.Spans]).
	Spans *Spans `json:"spans,omitempty"`
	// Rubric is scored by a judge model (see [Options.Judge]).
	Rubric *Rubric `json:"rubric,omitempty"`
}

// Repeat runs a case K times, each on the same host, and passes it when enough of the runs pass: at least one
// (pass@k) unless MinPassRate asks for a share of them. On replay the cassette holds the K runs' exchanges one
// after the other, as recording them left them.
type Repeat struct {
	// K is how many times the case runs, 1 to 100.
	K int `json:"k"`
	// MinPassRate is the share of the runs that must pass, from 0 to 1; 0 means one run is enough.
	MinPassRate float64 `json:"min_pass_rate,omitempty"`
}

// Price is what a model's tokens cost, per million, in a currency of the user's choice (the same for every
// price and limit of a suite).
type Price struct {
	InputPerMillion  float64 `json:"input_per_million"`
	OutputPerMillion float64 `json:"output_per_million"`
}

// Cost returns what u costs at p.
func (p Price) Cost(u chat.Usage) float64 {
	return (float64(u.InputTokens)*p.InputPerMillion + float64(u.OutputTokens)*p.OutputPerMillion) / 1e6
}

// Plan is what a case in plan mode must do: call no tool that changes anything (only the tools the host offers
// as read-only, and exit_plan_mode), and propose a plan (call exit_plan_mode, with a plan) when Proposed is
// true, or not when it is false.
type Plan struct {
	Proposed bool `json:"proposed"`
	// Contains lists texts the proposed plan must contain (case ignored).
	Contains []string `json:"contains,omitempty"`
}

// Spans is what the run's spans must show: the tools that ran (an "execute_tool" span each), and how many of
// them may fail.
type Spans struct {
	// Executed names the tools that ran, in order, and no other; a call rejected or left waiting for approval
	// does not run. Nil checks nothing.
	Executed []string `json:"executed,omitempty"`
	// MaxToolErrors, when set, bounds the tool spans that ended with an error.
	MaxToolErrors *int `json:"max_tool_errors,omitempty"`
}

// Trajectory is an expected sequence of tool calls.
type Trajectory struct {
	// Match is "exact" (these calls and no other, in this order; the default), "in_order" (these calls in this
	// order, others between them allowed) or "any_order" (these calls in any order, others allowed).
	Match string `json:"match,omitempty"`
	Calls []Call `json:"calls"`
}

// The values of Trajectory.Match.
const (
	MatchExact    = "exact"
	MatchInOrder  = "in_order"
	MatchAnyOrder = "any_order"
)

// Call is an expected tool call: the tool's name and, when Arguments is set, the values of the arguments it
// lists, each equal as a JSON value to the one the model sent (arguments not listed may take any value).
type Call struct {
	Tool      string                     `json:"tool"`
	Arguments map[string]json.RawMessage `json:"arguments,omitempty"`
}

func (c Call) String() string {
	if len(c.Arguments) == 0 {
		return c.Tool
	}
	keys := make([]string, 0, len(c.Arguments))
	for k := range c.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(c.Tool + "(")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + compact(c.Arguments[k]))
	}
	return b.String() + ")"
}

// Answer is what the final answer's text must hold.
type Answer struct {
	// Contains lists texts the answer must contain; NotContains texts it must not. Case is ignored.
	Contains    []string `json:"contains,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	// Regex is a regular expression (RE2 syntax) the answer must match.
	Regex string `json:"regex,omitempty"`
	// Schema is a JSON Schema the answer, read as JSON, must match.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Reference is an answer to compare with, as ADK's response_match_score does: the check's value is the
	// ROUGE-1 F-measure of the two texts' words (1 for the same words, 0 for none in common), not 0 or 1.
	Reference string `json:"reference,omitempty"`
}

// Load reads every *.json file of dir in fsys as a [Case], in the order of their names. It fails on the first
// file that is not a case, naming it; unknown fields are errors, so that a misspelt expectation is not silently
// ignored.
func Load(fsys fs.FS, dir string) ([]*Case, error) {
	matches, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("eval: no *.json cases in %s", dir)
	}
	sort.Strings(matches)
	var cases []*Case
	for _, m := range matches {
		data, err := fs.ReadFile(fsys, m)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		c, err := ParseCase(data)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", m, err)
		}
		c.file = m
		if c.Name == "" {
			c.Name = strings.TrimSuffix(path.Base(m), ".json")
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// maxRepeat bounds Repeat.K: a case run more often is a benchmark, not an eval.
const maxRepeat = 100

// ErrCase is wrapped by the errors of a case file that is not valid.
var ErrCase = errors.New("invalid case")

// ParseCase reads one case from its JSON and checks it.
func ParseCase(data []byte) (*Case, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var c Case
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCase, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrCase)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCase, err)
	}
	return &c, nil
}

func (c *Case) check() error {
	if (c.Text == "") == (len(c.Messages) == 0) {
		return errors.New(`give the input as "text" or as "messages", one of them`)
	}
	if t := c.Expect.Trajectory; t != nil {
		switch t.Match {
		case "", MatchExact, MatchInOrder, MatchAnyOrder:
		default:
			return fmt.Errorf("trajectory match %q; want exact, in_order or any_order", t.Match)
		}
		for i, call := range t.Calls {
			if call.Tool == "" {
				return fmt.Errorf("trajectory call %d names no tool", i+1)
			}
			for k, v := range call.Arguments {
				if !json.Valid(v) {
					return fmt.Errorf("trajectory call %d: argument %q is not JSON", i+1, k)
				}
			}
		}
	}
	if a := c.Expect.Answer; a != nil {
		if a.Regex != "" {
			if _, err := compileRegex(a.Regex); err != nil {
				return err
			}
		}
		if len(a.Schema) > 0 {
			if _, err := compileSchema(a.Schema); err != nil {
				return err
			}
		}
	}
	for i, f := range c.Expect.Fields {
		if err := checkField(i, f); err != nil {
			return err
		}
	}
	if r := c.Expect.Rubric; r != nil && strings.TrimSpace(r.Criteria) == "" {
		return errors.New("a rubric needs its criteria")
	}
	if c.Expect.MaxRounds < 0 || c.Expect.MaxTokens < 0 || c.Expect.MaxCost < 0 {
		return errors.New("max_rounds, max_tokens and max_cost cannot be negative")
	}
	if r := c.Repeat; r != nil && (r.K < 1 || r.K > maxRepeat || r.MinPassRate < 0 || r.MinPassRate > 1) {
		return fmt.Errorf("repeat k %d, min_pass_rate %v; want k from 1 to %d and a rate from 0 to 1", r.K, r.MinPassRate, maxRepeat)
	}
	if p := c.Price; p != nil && (p.InputPerMillion < 0 || p.OutputPerMillion < 0) {
		return errors.New("a price cannot be negative")
	}
	if c.Expect.Plan != nil && c.Mode != "plan" {
		return errors.New(`a plan expectation needs "mode": "plan"`)
	}
	if s := c.Expect.Spans; s != nil && s.MaxToolErrors != nil && *s.MaxToolErrors < 0 {
		return errors.New("spans max_tool_errors cannot be negative")
	}
	for name, v := range c.Thresholds {
		if v < 0 || v > 1 {
			return fmt.Errorf("threshold %s %v; want 0 to 1", name, v)
		}
	}
	return nil
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
