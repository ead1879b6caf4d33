package background_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestDepthLimit runs a job whose agent starts another background run: one level below the limit the start is
// made and the new job is one level deeper; at the limit it is refused, so runs that start runs cannot fan out
// without end.
func TestDepthLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		for _, tc := range []struct {
			depth   int
			started bool
		}{
			{depth: agent.DefaultMaxDepth - 1, started: true},
			{depth: agent.DefaultMaxDepth, started: false},
		} {
			is := is.New(t)
			// Frontdesk runs as the background job here, and its model starts Billing.
			g := newGate()
			f := newFixture(t, store, background.Options{}, starter(1, "Check."), g.model("done"))
			id := "bg_depth_" + strings.Repeat("x", tc.depth)
			out, err := f.m.Run(context.Background(), background.Job{ID: id, SettingsID: tenant, Agent: "Frontdesk", Task: "go",
				Caller: background.Caller{Agent: "Frontdesk", ConversationID: "outer"}, Depth: tc.depth})
			is.NoErr(err)
			is.Equal(out.Status, background.StatusSucceeded)
			conv, err := f.front.LoadConversation(context.Background(), tenant, id)
			is.NoErr(err)
			handles, refused := handleIn(conv.Messages), toolErrors(conv.Messages)
			if tc.started {
				is.Equal(len(handles), 1)
				is.Equal(len(refused), 0)
				st, err := f.m.State(context.Background(), tenant, handles[0])
				is.NoErr(err)
				is.Equal(st.Job.Depth, tc.depth+1)
				is.Equal(st.Job.Caller.ConversationID, id) // its answer goes to the job that started it
				g.open()
				f.final(t, tenant, id, handles[0])
			} else {
				is.Equal(len(handles), 0)
				is.Equal(len(refused), 1)
				is.True(strings.Contains(refused[0], "nested 4 deep, the limit"))
			}
		}
	})
}

// TestDefaultLimit: a Manager without a Limit refuses the start beyond DefaultLimit, and a negative Limit none.
func TestDefaultLimit(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		limit, starts, want int
	}{
		{limit: 0, starts: background.DefaultLimit + 2, want: background.DefaultLimit},
		{limit: -1, starts: background.DefaultLimit + 2, want: background.DefaultLimit + 2},
	} {
		g := newGate()
		f := newFixture(t, memory.New(), background.Options{Limit: tc.limit}, starter(tc.starts, "Check."), g.model("done"))
		res := f.run(t, tenant, "c", agent.Text("go"))
		is.Equal(len(handleIn(res.Messages)), tc.want)
		is.Equal(len(toolErrors(res.Messages)), tc.starts-tc.want)
		g.open()
	}
}
