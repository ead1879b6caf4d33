package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Rubric is a criterion a judge model scores the final answer on.
type Rubric struct {
	// Criteria say, in words, what a good answer does.
	Criteria string `json:"criteria"`
}

// ScoreRubric is the name of the judge's score.
const ScoreRubric = "rubric"

// Options configure [Evaluate] and [RunCases]; nil means none.
type Options struct {
	// Judge scores the cases that set a rubric; a case with a rubric and no judge is an error.
	Judge chat.Client
	// Price is the price of the cases that set Expect.MaxCost and no price of their own. Leave it nil to check
	// the cost the host's Config.Meter (package agent/budget) puts on each run, from its price table.
	Price *Price
	// Spans returns the spans ended so far by the tracer provider the host's telemetry uses, for the cases
	// that set Expect.Spans: the Ended method of a go.opentelemetry.io/otel/sdk/trace/tracetest SpanRecorder,
	// or the snapshots of an InMemoryExporter's spans. A case with a span expectation and no Spans is an error.
	Spans func() []sdktrace.ReadOnlySpan
	// Repeat, when above 0, runs every case that many times, in place of the case's own Repeat.K (its
	// MinPassRate still holds): for live runs, where each run asks the model anew. A replayed case must run as
	// often as it was recorded.
	Repeat int
}

const judgeInstructions = `You grade an assistant's final answer against criteria. Read the user's question, the answer and the ` +
	`criteria, and reply with one JSON object only: {"score": a number from 0 (fails the criteria) to 1 (meets them ` +
	`fully), "reason": one sentence saying why}.`

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1},` +
	`"reason":{"type":"string"}},"required":["score","reason"],"additionalProperties":false}`)

// Judge asks judge to score the run's answer on the case's rubric. A judge that fails, or answers anything but
// the score it was asked for, gives a score of 0 that says so: a rubric never passes by default.
func (c *Case) Judge(ctx context.Context, judge chat.Client, r *Run) Score {
	s := Score{Name: ScoreRubric}
	if c.Expect.Rubric == nil {
		s.Value, s.Reason = 1, "no rubric"
		return s
	}
	question := c.Text
	if question == "" {
		for _, m := range c.Messages {
			if m.Role == chat.RoleUser {
				question = m.Text()
			}
		}
	}
	prompt := fmt.Sprintf("Question:\n%s\n\nAnswer:\n%s\n\nCriteria:\n%s", question, r.Answer, c.Expect.Rubric.Criteria)
	resp, err := judge.Respond(ctx, []chat.Message{chat.SystemText(judgeInstructions), chat.UserText(prompt)},
		&chat.Options{ResponseFormat: &chat.ResponseFormat{Name: "grade", Schema: judgeSchema}})
	if err != nil {
		s.Reason = "the judge failed: " + err.Error()
		return s
	}
	var text strings.Builder
	for _, m := range resp.Messages {
		text.WriteString(m.Text())
	}
	var grade struct {
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(text.String())), &grade); err != nil || grade.Score == nil ||
		*grade.Score < 0 || *grade.Score > 1 {
		s.Reason = fmt.Sprintf("the judge did not answer with a score from 0 to 1: %q", clip(text.String()))
		return s
	}
	s.Value, s.Reason = *grade.Score, "the judge: "+grade.Reason
	return s
}
