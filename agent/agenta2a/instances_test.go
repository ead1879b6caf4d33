package agenta2a_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/examples/tickets"
)

// TestTwoInstances serves one Postgres from two hosts: a task started on one is read, followed and answered on the
// other.
func TestTwoInstances(t *testing.T) {
	is := is.New(t)
	s1, another := openPostgresPair(t)
	shared := tickets.NewMemoryClient(tickets.SampleTickets()...)
	one, two := newEnv(t, s1, shared), newEnv(t, another(), shared)
	c1, c2 := one.client(tokenA), two.client(tokenA)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Started on one, without waiting for it.
	blocking := false
	res, err := c1.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "wait here"}),
		Config: &a2a.MessageSendConfig{Blocking: &blocking}})
	is.NoErr(err)
	started := res.(*a2a.Task)
	is.Equal(started.Status.State, a2a.TaskStateWorking)
	<-one.model.waiting

	// Read on two.
	got, err := c2.GetTask(ctx, &a2a.TaskQueryParams{ID: started.ID})
	is.NoErr(err)
	is.Equal(got.Status.State, a2a.TaskStateWorking)

	// Followed on two, to its end.
	var states []a2a.TaskState
	var last a2a.Event
	for ev, err := range c2.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: started.ID}) {
		is.NoErr(err)
		switch ev := ev.(type) {
		case *a2a.Task:
			states = append(states, ev.Status.State)
			one.releaseWaits()
		case *a2a.TaskStatusUpdateEvent:
			states = append(states, ev.Status.State)
		}
		last = ev
	}
	is.Equal(states, []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted})
	is.True(last.(*a2a.TaskStatusUpdateEvent).Final)
	done, err := c2.GetTask(ctx, &a2a.TaskQueryParams{ID: started.ID})
	is.NoErr(err)
	is.Equal(done.Artifacts[0].Parts[0].(a2a.TextPart).Text, "Waited: wait here")

	// Asked on one, answered on two.
	asked := send(t, c1, "", a2a.TextPart{Text: "close 4711"})
	rq := requestOf(t, asked)
	answered, err := answerTask(c2, asked, approval(rq["requestId"].(string), true))
	is.NoErr(err)
	is.Equal(answered.Status.State, a2a.TaskStateCompleted)
	is.True(one.closed(4711))
	is.Equal(one.calls.closes.Load()+two.calls.closes.Load(), int64(1))
	again, err := c1.GetTask(ctx, &a2a.TaskQueryParams{ID: asked.ID})
	is.NoErr(err)
	answered.Status.Timestamp, again.Status.Timestamp = nil, nil
	is.Equal(again, answered)
}
