package background_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
)

// TestRetryHandsTheTaskOverOnce: a job's first attempt hands its task to the sub-agent's conversation and stops
// before its outcome is recorded (its model call fails, as when its worker dies mid-call); the queue's next
// attempt of the same job goes on from the conversation without handing the task over again, and an attempt
// after a run that ended answers from the conversation without calling the model.
func TestRetryHandsTheTaskOverOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		var calls atomic.Int32
		model := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			if calls.Add(1) == 1 {
				return nil, errors.New("the worker died")
			}
			return chattest.Text("invoice 7 is paid"), nil
		})
		billing, err := agent.NewHost(&Billing{}, agent.Config{Client: model, Store: store})
		is.NoErr(err)
		m := background.New(background.NewLocalQueue(store, ""), background.Options{})
		m.Register(billing)
		job := background.Job{ID: "bg_retry", SettingsID: tenant, Agent: billing.Name(), Task: "Is invoice 7 paid?"}

		_, _ = m.Run(ctx, job) // the first attempt: the task is handed over, the run stops
		is.Equal(tasksIn(t, store, job), 1)

		out, err := m.Run(ctx, job) // the queue's retry of the same job
		is.NoErr(err)
		is.Equal(out.Status, background.StatusSucceeded)
		is.Equal(out.Result, "invoice 7 is paid")
		is.Equal(tasksIn(t, store, job), 1) // handed over once

		out, err = m.Run(ctx, job) // an attempt after a run that ended, whose outcome was not recorded
		is.NoErr(err)
		is.Equal(out.Result, "invoice 7 is paid")
		is.Equal(calls.Load(), int32(2)) // answered from the conversation, no model call
		is.Equal(tasksIn(t, store, job), 1)
	})
}

// tasksIn counts the user messages of job's conversation that hold its task.
func tasksIn(t *testing.T, store storage.Store, job background.Job) int {
	t.Helper()
	entries, err := store.LoadAll(context.Background(), job.SettingsID, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Type != storage.EntryInput {
			continue
		}
		msgs, err := chat.UnmarshalMessages(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Role == chat.RoleUser && strings.Contains(m.Text(), job.Task) {
				n++
			}
		}
	}
	return n
}
