package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/matryer/is"
)

// TestRun classifies the sample tickets offline: every escalation is sent back once for its missing team, and
// each ticket ends with its verdict.
func TestRun(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(run(context.Background(), &out, offlineModel(), []int{4711, 4713}))
	is.Equal(bytes.Count(out.Bytes(), []byte("sent back: Your answer was not accepted: an escalated ticket needs an assignee")), 1)
	is.True(bytes.Contains(out.Bytes(), []byte("verdict  escalate, priority 2, for hardware")))
	is.True(bytes.Contains(out.Bytes(), []byte("verdict  close, priority 5, for nobody")))
	is.True(bytes.Contains(out.Bytes(), []byte(`so far  {"decision":"escalate","priority":2}`)))
}

func ExampleTriage() {
	_ = run(context.Background(), os.Stdout, offlineModel(), []int{4713})
	// Output:
	// ticket 4713
	//   so far  {"decision":"close","priority":5}
	//   so far  {"decision":"close","priority":5,"reasons":["The ticket was resolved: Replaced the feed roller."]}
	//   verdict  close, priority 5, for nobody: The ticket was resolved: Replaced the feed roller.
}
