package agenta2a_test

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

func TestCard(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), nil)
	c := e.client(tokenA)
	card, err := c.GetAgentCard(context.Background())
	is.NoErr(err)
	is.Equal(card.Name, "Desk")
	is.Equal(card.URL, e.endpoint())
	is.Equal(card.ProtocolVersion, "0.3.0")
	is.True(card.Capabilities.Streaming)
	is.True(len(card.SecuritySchemes) == 1)
	var closeSkill bool
	for _, s := range card.Skills {
		if s.Name == "close_ticket" {
			closeSkill = true
			is.True(strings.Contains(strings.Join(s.Tags, ","), "requires-approval"))
		}
	}
	is.True(closeSkill)
}

func TestSendAndGet(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s, nil)
		c := e.client(tokenA)
		task := send(t, c, "", a2a.TextPart{Text: "hello"})
		is.Equal(task.Status.State, a2a.TaskStateCompleted)
		is.Equal(string(task.ID), task.ContextID)
		is.Equal(len(task.Artifacts), 1)
		is.Equal(task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "You said: hello")
		got, err := c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: task.ID})
		is.NoErr(err)
		task.Status.Timestamp, got.Status.Timestamp = nil, nil
		is.Equal(got, task)

		// A second task in the same context.
		next := send(t, c, task.ContextID, a2a.TextPart{Text: "again"})
		is.Equal(next.ContextID, task.ContextID)
		is.True(next.ID != task.ID)
		is.Equal(next.Status.State, a2a.TaskStateCompleted)
		got, err = c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: next.ID})
		is.NoErr(err)
		next.Status.Timestamp, got.Status.Timestamp = nil, nil
		is.Equal(got, next)
		first, err := c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: task.ID})
		is.NoErr(err)
		is.Equal(len(first.History), 2) // the first task keeps its own messages
	})
}

func TestApproval(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s, nil)
		c := e.client(tokenA)
		t.Run("approved", func(t *testing.T) {
			is := is.New(t)
			task := send(t, c, "", a2a.TextPart{Text: "close 4711"})
			rq := requestOf(t, task)
			is.Equal(rq["tool"], "close_ticket")
			is.True(!e.closed(4711))
			done, err := answerTask(c, task, approval(rq["requestId"].(string), true))
			is.NoErr(err)
			is.Equal(done.Status.State, a2a.TaskStateCompleted)
			is.Equal(done.ID, task.ID)
			is.True(e.closed(4711))
		})
		t.Run("denied", func(t *testing.T) {
			is := is.New(t)
			task := send(t, c, "", a2a.TextPart{Text: "close 4712"})
			rq := requestOf(t, task)
			done, err := answerTask(c, task, approval(rq["requestId"].(string), false, "reason", "not yet"))
			is.NoErr(err)
			is.Equal(done.Status.State, a2a.TaskStateCompleted)
			is.True(strings.Contains(done.Artifacts[0].Parts[0].(a2a.TextPart).Text, "not yet"))
			is.True(!e.closed(4712))
		})
	})
}
