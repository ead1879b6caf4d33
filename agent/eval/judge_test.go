package eval_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
)

const rubricCase = `{"name":"get_ticket","text":"Is ticket 4711 open?",
	"expect":{"rubric":{"criteria":"Says whether the ticket is open, and names its title."}},
	"thresholds":{"rubric":0.7}}`

// judge answers every request with reply, and keeps what it was asked.
func judge(reply string, err error, asked *[]string, format **chat.ResponseFormat) chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		for _, m := range msgs {
			*asked = append(*asked, m.Text())
		}
		*format = opts.ResponseFormat
		if err != nil {
			return nil, err
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: reply}}}}}, nil
	})
}

// A rubric is scored by a judge model, which reads the question, the run's answer and the criteria; the case
// passes on its threshold. A judge that fails or answers garbage gives 0.
func TestRubric(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  string
		err    error
		score  float64
		passed bool
		reason string
	}{
		{"meets", `{"score": 0.8, "reason": "It says the ticket is open and names it."}`, nil, 0.8, true, "the judge: It says"},
		{"fails", `{"score": 0.2, "reason": "No title."}`, nil, 0.2, false, "the judge: No title."},
		{"garbage", `I think it is fine`, nil, 0, false, "did not answer with a score"},
		{"out of range", `{"score": 7, "reason": "great"}`, nil, 0, false, "did not answer with a score"},
		{"no score", `{"reason": "great"}`, nil, 0, false, "did not answer with a score"},
		{"error", ``, errors.New("overloaded"), 0, false, "the judge failed: overloaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c, err := eval.ParseCase([]byte(rubricCase))
			is.NoErr(err)
			var asked []string
			var format *chat.ResponseFormat
			res, err := eval.Evaluate(t.Context(), newHost(t, c), c, &eval.Options{Judge: judge(tc.reply, tc.err, &asked, &format)})
			is.NoErr(err)
			is.Equal(len(res.Scores), 1)
			s := res.Scores[0]
			is.Equal(s.Name, eval.ScoreRubric)
			is.Equal(s.Value, tc.score)
			is.True(strings.Contains(s.Reason, tc.reason)) // the reason is the judge's, or says what went wrong
			is.Equal(res.Passed, tc.passed)
			prompt := strings.Join(asked, "\n")
			is.True(strings.Contains(prompt, "Is ticket 4711 open?"))       // the question
			is.True(strings.Contains(prompt, "Printer prints blank pages")) // the run's answer
			is.True(strings.Contains(prompt, "names its title"))            // the criteria
			is.True(format != nil && strings.Contains(string(format.Schema), `"score"`))
		})
	}
}

func TestRubricNeedsAJudge(t *testing.T) {
	is := is.New(t)
	c, err := eval.ParseCase([]byte(rubricCase))
	is.NoErr(err)
	_, err = eval.Evaluate(t.Context(), nil, c, nil)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "has a rubric and no judge"))
	_, err = eval.ParseCase([]byte(`{"text":"q","expect":{"rubric":{"criteria":" "}}}`))
	is.True(err != nil) // a rubric without criteria
}
