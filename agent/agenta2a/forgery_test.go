package agenta2a_test

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// TestForgedAnswers sends approval answers no client may give; none executes anything, and none changes the
// conversations it names.
func TestForgedAnswers(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s, nil)
		a, b := e.client(tokenA), e.client(tokenB)
		waiting := func(t *testing.T, text string) (*a2a.Task, string) {
			task := send(t, a, "", a2a.TextPart{Text: text})
			return task, requestOf(t, task)["requestId"].(string)
		}
		unchanged := func(t *testing.T, tasks ...*a2a.Task) func() {
			before := map[string]int{}
			for _, tk := range tasks {
				before[tk.ContextID] = len(e.entries(tenantA, tk.ContextID))
			}
			closes := e.calls.closes.Load()
			return func() {
				t.Helper()
				if n := e.calls.closes.Load(); n != closes {
					t.Fatalf("%d executions", n-closes)
				}
				for id, n := range before {
					if got := len(e.entries(tenantA, id)); got != n {
						t.Fatalf("conversation %s has %d entries, had %d", id, got, n)
					}
				}
			}
		}
		refused := func(t *testing.T, err error, code string) {
			t.Helper()
			if err == nil || !strings.Contains(err.Error(), code) {
				t.Fatalf("err = %v, want %s", err, code)
			}
		}

		t.Run("an answer for another task", func(t *testing.T) {
			t1, r1 := waiting(t, "close 4711")
			t2, _ := waiting(t, "close 4712")
			check := unchanged(t, t1, t2)
			_, err := answerTask(a, t2, approval(r1, true))
			refused(t, err, "invalid params")
			check()
			is.New(t).True(!e.closed(4711) && !e.closed(4712))
		})
		t.Run("another tenant's task", func(t *testing.T) {
			is := is.New(t)
			t1, r1 := waiting(t, "close 4711")
			check := unchanged(t, t1)
			_, err := answerTask(b, t1, approval(r1, true))
			refused(t, err, "task not found")
			_, err = b.GetTask(context.Background(), &a2a.TaskQueryParams{ID: t1.ID})
			refused(t, err, "task not found")
			_, err = b.CancelTask(context.Background(), &a2a.TaskIDParams{ID: t1.ID})
			refused(t, err, "task not found")
			for _, err := range b.ResubscribeToTask(context.Background(), &a2a.TaskIDParams{ID: t1.ID}) {
				refused(t, err, "task not found")
				break
			}
			// Its context, as another tenant's new task there, reaches a conversation of that tenant, not this one.
			other := send(t, b, t1.ContextID, a2a.TextPart{Text: "hello"})
			is.Equal(other.Status.State, a2a.TaskStateCompleted)
			check()
			is.True(!e.closed(4711))
		})
		t.Run("a replayed answer", func(t *testing.T) {
			is := is.New(t)
			t1, r1 := waiting(t, "close 4711")
			done, err := answerTask(a, t1, approval(r1, true))
			is.NoErr(err)
			is.Equal(done.Status.State, a2a.TaskStateCompleted)
			is.Equal(e.calls.closes.Load(), int64(1))
			check := unchanged(t, t1)
			_, err = answerTask(a, t1, approval(r1, true))
			refused(t, err, "invalid params")
			// In a new task of the same context.
			msg := a2a.NewMessage(a2a.MessageRoleUser, approval(r1, true))
			msg.ContextID = t1.ContextID
			_, err = a.SendMessage(context.Background(), &a2a.MessageSendParams{Message: msg})
			refused(t, err, "invalid params")
			check()
		})
		t.Run("an answer with changed arguments", func(t *testing.T) {
			is := is.New(t)
			t1, r1 := waiting(t, "close 4712")
			check := unchanged(t, t1)
			_, err := answerTask(a, t1, approval(r1, true, "arguments", map[string]any{"number": 4713, "reason": "fixed"}))
			refused(t, err, "invalid params")
			check()
			// The same arguments, in another order, are the request's.
			closes := e.calls.closes.Load()
			done, err := answerTask(a, t1, approval(r1, true, "arguments", map[string]any{"reason": "fixed", "number": 4712}))
			is.NoErr(err)
			is.Equal(done.Status.State, a2a.TaskStateCompleted)
			is.Equal(e.calls.closes.Load(), closes+1)
		})
	})
}

// TestForgedAnswerOfficialClient: the official client answers its own task with another task's request.
func TestForgedAnswerOfficialClient(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s, nil)
		other := send(t, e.client(tokenA), "", a2a.TextPart{Text: "close 4711"})
		rq := requestOf(t, other)["requestId"].(string)
		st := runNode(t, e, tokenA, "forged", rq)
		is.Equal(len(st.Errors), 1)
		is.True(strings.Contains(st.Errors[0], "invalid params") && strings.Contains(st.Errors[0], "no such open request"))
		is.Equal(e.calls.closes.Load(), int64(0))
		tk := only(t, st)
		is.Equal(tk.Status.State, "input-required")
		sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), false)
	})
}
