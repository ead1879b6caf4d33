package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestRun(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(run(context.Background(), &out))
	got := out.String()
	for _, want := range []string{
		"search_tickets (read-only: true, requires approval: false)",
		"close_ticket (read-only: false, requires approval: true)",
		`"status" must be one of open, pending, closed`,
		`missing required property "reason"`,
		`"status":"closed"`, // the ticket closed by the sixth call
		"no ticket 9999 exists",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
