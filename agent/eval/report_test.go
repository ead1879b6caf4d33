package eval_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/eval"
)

var results = []eval.Result{
	{Case: "get_ticket", Passed: true, Scores: []eval.Score{{Name: eval.ScoreTrajectory, Value: 1, Reason: "1 of 1 expected calls (exact)"}}},
	{Case: "search <&>", Reason: `tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be get_ticket, got "search_tickets"`,
		Scores: []eval.Score{{Name: eval.ScoreTrajectory, Value: 0, Reason: "expected call 1 to be get_ticket"}}},
}

// The JUnit report reads back as JUnit: a suite, its counts, a failure with its reason for the failed case.
func TestWriteJUnit(t *testing.T) {
	is := is.New(t)
	var b bytes.Buffer
	is.NoErr(eval.WriteJUnit(&b, "support", results))
	var got struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	is.NoErr(xml.Unmarshal(b.Bytes(), &got))
	is.Equal(len(got.Suites), 1)
	s := got.Suites[0]
	is.Equal(s.Name, "support")
	is.Equal(s.Tests, 2)
	is.Equal(s.Failures, 1)
	is.Equal(s.Cases[0].Failure, nil)
	is.Equal(s.Cases[1].Name, "search <&>") // escaped and read back
	is.Equal(s.Cases[1].Failure.Message, results[1].Reason)
	is.Equal(s.Cases[0].Out, "tool_trajectory_avg_score 1.00: 1 of 1 expected calls (exact)\n")
}

func TestWriteJSON(t *testing.T) {
	is := is.New(t)
	var b bytes.Buffer
	is.NoErr(eval.WriteJSON(&b, results))
	var got []eval.Result
	is.NoErr(json.Unmarshal(b.Bytes(), &got))
	is.Equal(len(got), 2)
	is.Equal(got[1].Reason, results[1].Reason)
	is.Equal(got[0].Scores[0], results[0].Scores[0])
	b.Reset()
	is.NoErr(eval.WriteJSON(&b, nil))
	is.Equal(b.String(), "[]\n")
}

// The report reads back through a JUnit parser (github.com/joshdk/go-junit, which CI tools' formats follow): a
// suite per suite the results name, each case passed or failed with its reason and its scores.
func TestWriteJUnitParsed(t *testing.T) {
	is := is.New(t)
	rs := []eval.Result{
		{Suite: "TestEvals", Case: "read", Passed: true, Scores: []eval.Score{{Name: eval.ScoreTrajectory, Value: 1, Reason: "1 of 1"}}},
		{Suite: "TestEvals", Case: "close", Reason: "approvals 0.00 < 1.00: it waited for nothing",
			Scores: []eval.Score{{Name: eval.ScoreApprovals, Value: 0, Reason: "it waited for nothing"}}},
		{Suite: "TestOther", Case: "flaky", Passed: true, Runs: 3, PassedRuns: 2},
	}
	var b bytes.Buffer
	is.NoErr(eval.WriteJUnit(&b, "unused", rs))
	suites, err := junit.Ingest(b.Bytes())
	is.NoErr(err)
	is.Equal(len(suites), 2)
	is.Equal(suites[0].Name, "TestEvals")
	is.Equal(suites[0].Totals.Tests, 2)
	is.Equal(suites[0].Totals.Passed, 1)
	is.Equal(suites[0].Totals.Failed, 1)
	is.Equal(suites[0].Tests[1].Name, "close")
	is.Equal(suites[0].Tests[1].Status, junit.StatusFailed)
	is.Equal(suites[0].Tests[1].Message, "approvals 0.00 < 1.00: it waited for nothing")
	is.True(strings.Contains(suites[0].Tests[1].Error.Error(), "approvals 0.00: it waited for nothing"))
	is.Equal(suites[1].Name, "TestOther")
	is.Equal(suites[1].Tests[0].Status, junit.StatusPassed)
	is.Equal(suites[1].Tests[0].SystemOut, "2 of 3 runs passed\n")
}
