package eval_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/eval"
)

// envReportedLine makes TestReportedLine's own process the child that fails.
const envReportedLine = "TYPESHIFT_EVAL_REPORTED_LINE_CHILD"

// TestReportedLine: a failing case, and a request its cassette does not hold, are reported at the line of the
// test that called RunCases, not at a line of package eval or cassette. The failures happen in a child process
// (this test, run again), whose output the parent reads.
func TestReportedLine(t *testing.T) {
	if os.Getenv(envReportedLine) != "" {
		reportedLineChild(t)
		return
	}
	is := is.New(t)
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReportedLine$", "-test.v")
	cmd.Env = append(os.Environ(), envReportedLine+"=1", eval.EnvResults+"=")
	out, err := cmd.CombinedOutput()
	is.True(err != nil) // the child fails
	want := regexp.MustCompile(`want failures at line (\d+)`).FindSubmatch(out)
	if want == nil {
		t.Fatalf("the child did not say its line:\n%s", out)
	}
	// The case's failure is at the call of RunCases. The request runs on the subtest's goroutine, where no line of
	// a test file is on the stack: its miss is reported where the test's helper made the cassette.
	src, err := os.ReadFile("eval_test.go")
	is.NoErr(err)
	newAt := 0
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "rec := cassette.New(t, ") {
			newAt = i + 1
		}
	}
	for failure, at := range map[string]string{
		"case get_ticket (": "helperline_test.go:" + string(want[1]) + ": ",
		"cassette testdata/cassettes/get_ticket.txt: POST": fmt.Sprintf("eval_test.go:%d: ", newAt),
	} {
		found := false
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, failure) && strings.HasPrefix(strings.TrimSpace(line), at) {
				found = true
			}
		}
		if !found {
			t.Errorf("the child did not report %q at %s:\n%s", failure, at, out)
		}
	}
	is.True(!strings.Contains(string(out), "run.go:")) // no failure of package eval's own lines
	is.True(!strings.Contains(string(out), "cassette.go:"))
}

// reportedLineChild runs two cases that fail: one whose answer misses a text, one whose input its cassette does
// not hold.
func reportedLineChild(t *testing.T) {
	cases, err := eval.Load(os.DirFS("testdata"), "cases")
	if err != nil {
		t.Fatal(err)
	}
	var failing []*eval.Case
	for _, c := range cases {
		if c.Name == "get_ticket" {
			wrong := *c
			wrong.Expect.Answer = &eval.Answer{Contains: []string{"a text no answer holds"}}
			miss := *c
			miss.Name = "get_ticket_miss"
			miss.Text = c.Text + " (a request the cassette does not hold)"
			failing = append(failing, &wrong, &miss)
		}
	}
	newHost := func(t *testing.T, c *eval.Case) *agent.Host {
		t.Helper()
		name := *c
		name.Name = "get_ticket" // both read get_ticket's cassette
		return newHost(t, &name)
	}
	_, _, line, _ := runtime.Caller(0)
	fmt.Printf("want failures at line %d\n", line+2)
	eval.RunCases(t, failing, newHost, nil)
}
