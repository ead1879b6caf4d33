package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/eval"
)

func result(name string, passed bool, scores ...float64) eval.Result {
	r := eval.Result{Suite: "TestEvals", Case: name, Passed: passed}
	names := []string{eval.ScoreTrajectory, eval.ScoreAnswer}
	for i, v := range scores {
		r.Scores = append(r.Scores, eval.Score{Name: names[i], Value: v, Reason: "why"})
	}
	if !passed {
		r.Reason = "tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be get_ticket"
	}
	return r
}

// Two runs compare case by case: what regressed, and by how much, fails the build; what improved, stayed, came
// or went does not, unless a new case fails.
func TestCompare(t *testing.T) {
	is := is.New(t)
	was := []eval.Result{
		result("broke", true, 1, 1),
		result("fell", false, 0.5, 1),
		result("fixed", false, 0, 1),
		result("same", true, 1),
		result("gone", true, 1),
	}
	now := []eval.Result{
		result("broke", false, 0, 1),
		result("fell", false, 0.25, 1),
		result("fixed", true, 1, 1),
		result("same", true, 1),
		result("new", false, 0),
		result("new, passing", true, 1),
		{Suite: "TestEvals", Case: "multi-line", Reason: "a miss:\n\tbody.messages[1]: recorded \"a\", got \"b\""},
	}
	changes := eval.Compare(was, now)
	kinds := map[string]string{}
	failing := []string{}
	for _, c := range changes {
		kinds[c.Case] = c.Kind
		if c.Failing() {
			failing = append(failing, c.Case)
		}
	}
	is.Equal(kinds, map[string]string{"broke": eval.Regressed, "fell": eval.Regressed, "fixed": eval.Improved,
		"same": eval.Same, "gone": eval.Removed, "new": eval.Added, "new, passing": eval.Added, "multi-line": eval.Added})
	is.Equal(failing, []string{"broke", "fell", "multi-line", "new"})
	is.Equal(changes[0].Case, "broke") // in order of suite and case
	is.Equal(changes[0].Scores, []eval.ScoreChange{{Name: eval.ScoreTrajectory, Was: 1, Now: 0}})
	is.Equal(changes[1].Scores[0].Delta(), -0.25)

	var b bytes.Buffer
	is.NoErr(eval.WriteTable(&b, changes, false))
	table := b.String()
	is.True(strings.Contains(table, "TestEvals/broke"))
	is.True(strings.Contains(table, "pass  FAIL  regressed  tool_trajectory_avg_score 1.00→0.00 (-1.00); tool_trajectory_avg_score 0.00 < 1.00"))
	is.True(strings.Contains(table, "tool_trajectory_avg_score 0.50→0.25 (-0.25)"))
	is.True(!strings.Contains(table, "TestEvals/same")) // unchanged cases are left out
	is.True(strings.Contains(table, "TestEvals/gone"))
	is.True(strings.Contains(table, `added      a miss: body.messages[1]: recorded "a", got "b"`+"\n")) // one line a case
	is.Equal(strings.Count(table, "\n"), 8)                                                             // the header and seven changes, one line each
}

// Results written as JSON read back the same.
func TestReadJSON(t *testing.T) {
	is := is.New(t)
	rs := []eval.Result{result("a", true, 1), result("b", false, 0)}
	rs[0].Runs, rs[0].PassedRuns = 3, 2
	var b bytes.Buffer
	is.NoErr(eval.WriteJSON(&b, rs))
	got, err := eval.ReadJSON(&b)
	is.NoErr(err)
	is.Equal(got, rs)

	_, err = eval.ReadJSON(strings.NewReader(`[{"passed":true}]`))
	is.True(err != nil) // a result names its case
	_, err = eval.ReadJSON(strings.NewReader(`{"case":"a"}`))
	is.True(err != nil) // results are an array
}

// With TYPESHIFT_EVAL_RESULTS set, RunCases writes the suite's results there, named after the package and the
// test.
func TestRunCasesWritesResults(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	t.Setenv(eval.EnvResults, dir)
	cases, err := eval.Load(os.DirFS("testdata"), "cases")
	is.NoErr(err)
	var picked []*eval.Case
	for _, c := range cases {
		if c.Name == "get_ticket" || c.Name == "search" {
			picked = append(picked, c)
		}
	}
	eval.RunCases(t, picked, newHost, nil)
	f, err := os.Open(filepath.Join(dir, "agent_eval_TestRunCasesWritesResults.json"))
	is.NoErr(err)
	defer f.Close()
	got, err := eval.ReadJSON(f)
	is.NoErr(err)
	is.Equal(len(got), 2)
	is.Equal(got[0].Suite, "TestRunCasesWritesResults")
	is.Equal(got[0].Package, "agent/eval") // suites of the same name in two packages stay apart
	is.Equal(got[0].Case, "get_ticket")
	is.True(got[0].Passed && got[1].Passed)
}

// Suites of the same name in two packages compare apart.
func TestComparePackages(t *testing.T) {
	is := is.New(t)
	a, b := result("read", true, 1), result("read", true, 1)
	a.Package, b.Package = "support", "billing"
	b2 := b
	b2.Passed, b2.Scores = false, []eval.Score{{Name: eval.ScoreTrajectory, Value: 0}}
	changes := eval.Compare([]eval.Result{a, b}, []eval.Result{a, b2})
	is.Equal(len(changes), 2)
	is.Equal(eval.CaseName(changes[0].Package, changes[0].Suite, changes[0].Case), "billing/TestEvals/read")
	is.Equal(changes[0].Kind, eval.Regressed)
	is.Equal(changes[1].Kind, eval.Same)
}
