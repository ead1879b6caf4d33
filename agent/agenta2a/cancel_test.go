package agenta2a_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

func TestCancel(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s, nil)
		c := e.client(tokenA)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var last a2a.Event
		for ev, err := range c.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "wait"})}) {
			is.NoErr(err)
			if task, ok := ev.(*a2a.Task); ok {
				got, err := c.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID})
				is.NoErr(err)
				is.Equal(got.Status.State, a2a.TaskStateCanceled)
			}
			last = ev
		}
		st, ok := last.(*a2a.TaskStatusUpdateEvent)
		is.True(ok)
		is.Equal(st.Status.State, a2a.TaskStateCanceled)
		is.True(st.Final)
	})
}

// TestStreamShowsToolCalls: a stream says when the agent calls a tool, as a working status, before the answer.
func TestStreamShowsToolCalls(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), nil)
	var states []a2a.TaskState
	var tool any
	for ev, err := range e.client(tokenA).SendStreamingMessage(context.Background(), &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "search printer"})}) {
		is.NoErr(err)
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			states = append(states, st.Status.State)
			if st.Status.State == a2a.TaskStateWorking {
				tool = st.Status.Message.Parts[0].(a2a.DataPart).Data[agenta2a.DataToolCall].(map[string]any)["tool"]
			}
		}
	}
	is.Equal(states, []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted})
	is.Equal(tool, "search_tickets")
}
