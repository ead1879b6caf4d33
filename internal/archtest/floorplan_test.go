package archtest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// runOrder is the floor plan of package agent: its files from the top down, in the order a run meets them (see
// docs/how-a-run-works.md). A file may use the names of the files below it; a use of a name above it is an arrow
// back up, which TestRunFlowsOneWay bounds.
var runOrder = []string{
	// What callers use of a host beside a run: its description, the watch, asking for approval, a host as another
	// agent's tool.
	"doc.go", "describe.go", "offered.go", "watch.go", "askapproval.go", "caller.go", "subagent.go",
	// A run's entry and its one path: load, decide, build (the settings, tools and client, resolved once; the
	// pipeline, built once), run, end.
	"host.go", "configcheck.go", "resolve.go", "pipeline.go", "schemacheck.go",
	// The stages, outermost first: the conversation and the handoff loop, then the stages of every agent's pipeline.
	"conversation.go", "handoff.go", "runmiddleware.go", "contextstage.go", "approvals.go", "rulefor.go",
	"answer.go", "authors.go", "toolloop.go", "invoke.go", "checkpoint.go", "callids.go", "compaction.go", "cachehints.go",
	// The conversation's parts, each below the parts that use it: steering taken in, the journal, the lease, the
	// hold on the conversation and its watches, the live feed, the routing among agents.
	"steer.go", "journal.go", "lease.go", "conversationrun.go", "watches.go", "relay.go", "live.go", "routing.go",
	// The run's state, in parts (the meter's among them), what a run returns, and the words they are written in.
	"runstate.go", "session.go", "history.go", "budget.go", "ask.go", "options.go", "result.go", "request.go",
	"plan.go", "usage.go", "progress.go", "stream.go", "answerpartial.go", "sanitize.go",
	// What the host is given (its context providers, rules, settings), the agent's declaration, which the host
	// binds once, and the words of every floor.
	"config.go", "contextproviders.go", "rules.go", "settings.go", "use.go", "answermode.go", "returns.go", "answererror.go",
	"agent.go", "answerdecl.go", "declaration.go", "errors.go", "state.go",
}

// maxUpArrows bounds the arrows from a file of package agent back up to a file above it in runOrder.
const maxUpArrows = 15

func TestRunFlowsOneWay(t *testing.T) {
	is := is.New(t)
	plan, err := LoadFloorPlan(filepath.Join("..", "..", "agent"), runOrder)
	is.NoErr(err)
	is.Equal(plan.Unplaced, []string(nil)) // every file of package agent has its place in runOrder
	var b strings.Builder
	for _, a := range plan.Up {
		fmt.Fprintf(&b, "\n\t%s -> %s: %s", a.From, a.To, strings.Join(a.Names, ", "))
	}
	t.Logf("%d arrows, %d back up, %d pairs both ways:%s", len(plan.Arrows), len(plan.Up), plan.Mutual, b.String())
	if len(plan.Up) > maxUpArrows {
		t.Errorf("%d arrows run back up in package agent, more than %d: move the name down, or the use up", len(plan.Up), maxUpArrows)
	}
}

// TestFloorPlanFindsTheArrowBackUp plants a package whose bottom file uses its top file's type and field, and one
// whose middle file uses a name of the bottom one, and checks that only the first runs back up.
func TestFloorPlanFindsTheArrowBackUp(t *testing.T) {
	is := is.New(t)
	plan, err := LoadFloorPlan(filepath.Join("testdata", "floorplan"), []string{"top.go", "middle.go", "bottom.go"})
	is.NoErr(err)
	is.Equal(plan.Unplaced, []string(nil))
	is.Equal(len(plan.Arrows), 4) // top -> middle, top -> bottom, middle -> bottom, bottom -> top
	is.Equal(plan.Up, []Arrow{{From: "bottom.go", To: "top.go", Names: []string{"Top", "n"}}})
	is.Equal(plan.Mutual, 1) // top and bottom use each other's names

	plan, err = LoadFloorPlan(filepath.Join("testdata", "floorplan"), []string{"bottom.go", "top.go"})
	is.NoErr(err)
	is.Equal(plan.Unplaced, []string{"middle.go"})
	is.Equal(len(plan.Up), 1) // top -> bottom, now below it
	is.Equal(plan.Up[0].From, "top.go")
}
