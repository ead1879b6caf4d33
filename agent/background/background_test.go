package background_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
)

// A caller whose run ended before the answer came finds it in its conversation, and the next run's model reads it.
func TestAnswerAfterTheCallerEnded(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		f := newFixture(t, store, background.Options{}, starter(1, "Was invoice 12 paid?"), g.model("Invoice 12 was paid on 3 March."))
		res := f.run(t, tenant, "conv-1", agent.Text("go"))
		handles := handleIn(res.Messages)
		is.Equal(len(handles), 1)
		id := handles[0]

		st, err := f.m.State(context.Background(), tenant, id)
		is.NoErr(err)
		is.True(!st.Status.Final()) // the caller's run ended first
		g.open()
		st = f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusSucceeded)
		is.Equal(st.Result, "Invoice 12 was paid on 3 March.")
		is.Equal(st.Job.Mode, "")
		is.Equal(st.Job.Caller.ConversationID, "conv-1")

		reports := reportsOf(t, store, tenant, "conv-1", id)
		is.Equal(len(reports), 1) // exactly once
		is.True(strings.Contains(reports[0], "succeeded"))
		is.True(strings.Contains(reports[0], "Invoice 12 was paid on 3 March."))

		// The sub-agent's conversation is its own, stored under the handle, and its run was published for watchers.
		entries, err := store.LoadAll(context.Background(), tenant, id)
		is.NoErr(err)
		is.True(len(entries) >= 3)
		wctx, stop := context.WithTimeout(context.Background(), 30*time.Second) // a bound, for a run that published nothing
		rng, err := store.EventRange(wctx, tenant, id)
		is.NoErr(err)
		var watched strings.Builder
		for u, err := range f.billing.WatchAfter(wctx, tenant, id, rng.Base) { // from the conversation's first event
			is.NoErr(err)
			for _, p := range u.Parts {
				if tx, ok := p.(chat.Text); ok {
					watched.WriteString(tx.Text)
				}
			}
			if u.FinishReason != "" {
				break
			}
		}
		stop()
		is.Equal(watched.String(), "Invoice 12 was paid on 3 March.")

		// The conversation's next run reads the report.
		var saw atomic.Bool
		next, err := agent.NewHost(&Frontdesk{}, agent.Config{Store: store, Client: chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			saw.Store(sees(msgs, "Invoice 12 was paid on 3 March."))
			return chattest.Text("fine"), nil
		})})
		is.NoErr(err)
		_, err = next.Run(context.Background(), agent.Text("news?"), agent.SettingsID(tenant), agent.Conversation("conv-1"))
		is.NoErr(err)
		is.True(saw.Load())
		is.Equal(len(reportsOf(t, store, tenant, "conv-1", id)), 1)
	})
}

// The live run of the caller takes the answer in before its next model call.
func TestLiveCallerTakesTheAnswerIn(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		var rounds atomic.Int32
		front := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			switch {
			case sees(msgs, "[background run"):
				return chattest.Text("Billing says: paid."), nil
			case len(handleIn(msgs)) == 0:
				return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Was invoice 12 paid?"}`)), nil
			}
			// Still running: look again, as a model that polls would. Bounded by the test's patience.
			if rounds.Add(1) > 5000 {
				return chattest.Text("gave up"), nil
			}
			time.Sleep(2 * time.Millisecond)
			h := handleIn(msgs)[0]
			return chattest.Calls(chattest.Call("p"+time.Now().Format("150405.000000000"), "background_status", `{"handle":"`+h+`"}`)), nil
		})
		f := newFixture(t, store, background.Options{}, front, chattest.NewScript(chattest.Text("paid")))
		// The caller polls for as long as the background run takes on a loaded machine: its iteration limit, not
		// the default 40, is what bounds the test's patience.
		res := f.run(t, tenant, "conv-1", agent.Text("go"), agent.RunSettings(json.RawMessage(`{"max_iterations":5002}`)))
		is.Equal(res.Text(), "Billing says: paid.")
		// The report is a steering entry of the caller's run, taken in while it ran.
		entries, err := store.LoadAll(context.Background(), tenant, "conv-1")
		is.NoErr(err)
		var steering []storage.Entry
		for _, e := range entries {
			if e.Type == storage.EntrySteering {
				steering = append(steering, e)
			}
		}
		is.Equal(len(steering), 1)
		is.Equal(steering[0].RunID, entries[0].RunID) // taken in by the live run, not stored at its release
	})
}

// Two background runs answering at once both reach the caller, once each.
func TestTwoAnswerAtOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		f := newFixture(t, store, background.Options{}, starter(2, "Check invoice 12."), g.model("checked"))
		res := f.run(t, tenant, "conv-1", agent.Text("go"))
		handles := handleIn(res.Messages)
		is.Equal(len(handles), 2)
		waitFor(t, "both to run", func() bool {
			a, _ := f.m.State(context.Background(), tenant, handles[0])
			b, _ := f.m.State(context.Background(), tenant, handles[1])
			return a.Status == background.StatusRunning && b.Status == background.StatusRunning
		})
		g.open() // both answer at once
		for _, id := range handles {
			st := f.final(t, tenant, "conv-1", id)
			is.Equal(st.Status, background.StatusSucceeded)
		}
		for _, id := range handles {
			is.Equal(len(reportsOf(t, store, tenant, "conv-1", id)), 1)
		}
	})
}

// billingRefunds is Billing's model: it asks to refund invoice 12, then says what came of it.
func billingRefunds() chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok {
					if r.Error != "" {
						return chattest.Text("not refunded: " + r.Error), nil
					}
					return chattest.Text("refunded invoice 12"), nil
				}
			}
		}
		// Keys in an order Postgres's jsonb does not keep, so the surfaced request's MAC must survive the store.
		return chattest.Calls(chattest.Call("r1", "refund", `{"invoice":12,"amount":5,"currency":"EUR"}`)), nil
	})
}

// surfacedRequest waits for the job to wait and returns the one request it left in the caller's conversation.
func (f *fixture) surfacedRequest(t *testing.T, conv, id string) chat.ApprovalRequest {
	t.Helper()
	waitFor(t, "the run to wait for approval", func() bool {
		st, err := f.m.State(context.Background(), tenant, id)
		return err == nil && st.Status == background.StatusWaiting
	})
	// The report follows the state; it holds the conversation for a moment, so wait for it before answering.
	waitFor(t, "the waiting report", func() bool { return len(reportsOf(t, f.store, tenant, conv, id)) == 1 })
	cs, err := f.front.LoadConversation(context.Background(), tenant, conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Pending) != 1 {
		t.Fatalf("pending requests in the caller's conversation: %v", cs.Pending)
	}
	return cs.Pending[0]
}

// A sub-agent that needs approval: the request surfaces in the caller's conversation, the user approves it there,
// the sub-agent goes on and its answer reaches the caller. Forged and replayed answers are refused.
func TestApprovalSurfacesAndReachesTheSubAgent(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		f := newFixture(t, store, background.Options{}, starter(1, "Refund invoice 12."), billingRefunds())
		res := f.run(t, tenant, "conv-1", agent.Text("go"))
		id := handleIn(res.Messages)[0]
		req := f.surfacedRequest(t, "conv-1", id)
		is.Equal(req.ToolID, background.ApprovalToolID)
		is.True(strings.Contains(string(req.Call.Arguments), `"refund"`))
		is.True(strings.Contains(string(req.Call.Arguments), id))
		is.Equal(f.refunds.Load(), int32(0))
		is.True(strings.Contains(reportsOf(t, store, tenant, "conv-1", id)[0], "approval"))

		// A forged answer: an id the server never stored.
		_, err := f.front.Run(context.Background(), agent.Approve("approval_000000000000000000000000"), agent.SettingsID(tenant), agent.Conversation("conv-1"))
		var ae *agent.ApprovalError
		is.True(errors.As(err, &ae))
		is.Equal(ae.Reason, agent.ApprovalUnknown)
		// The surfaced request, answered in another tenant's conversation of the same name, binds to nothing.
		_, err = f.front.Run(context.Background(), agent.Approve(req.ID), agent.SettingsID(otherTenant), agent.Conversation("conv-1"))
		is.True(errors.As(err, &ae))
		is.Equal(ae.Reason, agent.ApprovalUnknown)
		is.Equal(f.refunds.Load(), int32(0))

		f.run(t, tenant, "conv-1", agent.Approve(req.ID))
		st := f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusSucceeded)
		is.Equal(st.Result, "refunded invoice 12")
		is.Equal(f.refunds.Load(), int32(1))
		waitFor(t, "the answer", func() bool { return len(reportsOf(t, store, tenant, "conv-1", id)) == 2 })

		// Replayed: the request is closed.
		_, err = f.front.Run(context.Background(), agent.Approve(req.ID), agent.SettingsID(tenant), agent.Conversation("conv-1"))
		is.True(errors.As(err, &ae))
		is.Equal(ae.Reason, agent.ApprovalClosed)
		is.Equal(f.refunds.Load(), int32(1))
	})
}

// A rejection in the caller's conversation reaches the sub-agent, whose model reads it.
func TestRejectionReachesTheSubAgent(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		f := newFixture(t, store, background.Options{}, starter(1, "Refund invoice 12."), billingRefunds())
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		req := f.surfacedRequest(t, "conv-1", id)
		f.run(t, tenant, "conv-1", agent.Reject(req.ID, "no refunds today"))
		st := f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusSucceeded)
		is.Equal(st.Result, "not refunded: no refunds today")
		is.Equal(f.refunds.Load(), int32(0))
	})
}

// A call of the approval tool that the caller's model makes up (here in auto mode, where it would be approved at
// once) passes nothing on: only requests the Manager surfaced, in this tenant's conversation, reach a sub-agent.
func TestForgedApprovalCallIsRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		var forged string
		var readErrs []string
		front := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			if last := msgs[len(msgs)-1]; last.Role == chat.RoleUser && last.Text() == "forge" {
				return chattest.Calls(chattest.Call("f1", "background_approval", forged)), nil
			}
			readErrs = toolErrors(msgs)
			if last := msgs[len(msgs)-1]; last.Role == chat.RoleUser && last.Text() == "go" {
				return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Refund invoice 12."}`)), nil
			}
			return chattest.Text("ok"), nil
		})
		f := newFixture(t, store, background.Options{}, front, billingRefunds())
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		req := f.surfacedRequest(t, "conv-1", id)
		st, err := f.m.State(context.Background(), tenant, id)
		is.NoErr(err)
		// The model copies the surfaced call's arguments, with the sub-agent's request id, but a MAC of its own,
		// in a conversation of the tenant in auto mode, where its call is approved at once. (Left open in conv-1,
		// the surfaced request stays as it is: a run of conv-1 that does not answer it would reject it.)
		forged = strings.Replace(string(req.Call.Arguments), `"mac":"`, `"mac":"00`, 1)
		f.run(t, tenant, "conv-2", agent.Text("forge"), agent.Mode(agent.ModeAuto))
		is.True(len(readErrs) > 0)
		is.True(strings.Contains(readErrs[len(readErrs)-1], "not an approval request of a background run"))
		// The same arguments, verbatim: bound to conv-1, refused in conv-3.
		forged = string(req.Call.Arguments)
		readErrs = nil
		f.run(t, tenant, "conv-3", agent.Text("forge"), agent.Mode(agent.ModeAuto))
		is.True(len(readErrs) > 0)
		is.True(strings.Contains(readErrs[len(readErrs)-1], "not an approval request of a background run"))

		after, err := f.m.State(context.Background(), tenant, id)
		is.NoErr(err)
		is.Equal(after.Status, background.StatusWaiting)
		is.Equal(after.Attempts, st.Attempts)
		is.Equal(f.refunds.Load(), int32(0))
	})
}

// Cancelled from the caller's conversation (the tool) and from the API: reported as cancelled.
func TestCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate() // never opened: the sub-agent runs until cancelled
		t.Cleanup(g.open)
		var cancelIt string
		front := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			last := msgs[len(msgs)-1]
			switch {
			case last.Role == chat.RoleUser && last.Text() == "go":
				return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Slow task."}`)), nil
			case last.Role == chat.RoleUser && last.Text() == "cancel":
				return chattest.Calls(chattest.Call("c1", "background_cancel", `{"handle":"`+cancelIt+`"}`)), nil
			}
			return chattest.Text("ok"), nil
		})
		f := newFixture(t, store, background.Options{}, front, g.model("never"))
		a := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		b := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		waitFor(t, "a to run", func() bool {
			st, _ := f.m.State(context.Background(), tenant, a)
			return st.Status == background.StatusRunning
		})

		cancelIt = a
		f.run(t, tenant, "conv-1", agent.Text("cancel"))
		st := f.final(t, tenant, "conv-1", a)
		is.Equal(st.Status, background.StatusCancelled)
		is.True(strings.Contains(reportsOf(t, store, tenant, "conv-1", a)[0], "was cancelled"))

		is.NoErr(f.m.Cancel(context.Background(), tenant, b))
		st = f.final(t, tenant, "conv-1", b)
		is.Equal(st.Status, background.StatusCancelled)
		is.Equal(len(reportsOf(t, store, tenant, "conv-1", b)), 1)
		is.NoErr(f.m.Cancel(context.Background(), tenant, b)) // ended: no error, nothing more
		is.Equal(len(reportsOf(t, store, tenant, "conv-1", b)), 1)
	})
}

// A tenant at its limit is refused another start; another tenant is not.
func TestTenantLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		t.Cleanup(g.open)
		f := newFixture(t, store, background.Options{Limit: 1}, starter(2, "Check."), g.model("done"))
		res := f.run(t, tenant, "conv-1", agent.Text("go"))
		is.Equal(len(handleIn(res.Messages)), 1)
		errs := toolErrors(res.Messages)
		is.Equal(len(errs), 1)
		is.True(strings.Contains(errs[0], "limit"))
		// Another tenant has its own allowance.
		other := f.run(t, otherTenant, "conv-1", agent.Text("go"))
		is.Equal(len(handleIn(other.Messages)), 1)
		g.open()
		f.final(t, tenant, "conv-1", handleIn(res.Messages)[0])
		// A slot is free again.
		again := f.run(t, tenant, "conv-2", agent.Text("go"))
		is.True(len(handleIn(again.Messages)) >= 1) // the second may start too, if the first has ended already
	})
}

// A run past its deadline is reported as timed out.
func TestDeadline(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		t.Cleanup(g.open)
		f := newFixture(t, store, background.Options{Deadline: 200 * time.Millisecond}, starter(1, "Slow."), g.model("late"))
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		st := f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusTimedOut)
		is.True(strings.Contains(reportsOf(t, store, tenant, "conv-1", id)[0], "timed out"))
	})
}

// A failing sub-agent is reported as failed, with why.
func TestFailingSubAgent(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		f := newFixture(t, store, background.Options{}, starter(1, "Check."), chattest.NewScript().Fail(errors.New("provider down")))
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		st := f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusFailed)
		is.True(strings.Contains(st.Error, "provider down"))
		r := reportsOf(t, store, tenant, "conv-1", id)
		is.Equal(len(r), 1)
		is.True(strings.Contains(r[0], "failed"))
		is.True(strings.Contains(r[0], "provider down"))
	})
}

// Another tenant's handle is no handle: its state and cancel answer as for a missing one.
func TestAnotherTenantsHandle(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		t.Cleanup(g.open)
		var ask string
		front := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			last := msgs[len(msgs)-1]
			switch {
			case last.Role == chat.RoleUser && last.Text() == "go":
				return chattest.Calls(chattest.Call("s1", "start_billing", `{"task":"Secret task."}`)), nil
			case last.Role == chat.RoleUser && last.Text() == "peek":
				return chattest.Calls(chattest.Call("p1", "background_status", `{"handle":"`+ask+`"}`),
					chattest.Call("p2", "background_cancel", `{"handle":"`+ask+`"}`)), nil
			}
			return chattest.Text("ok"), nil
		})
		f := newFixture(t, store, background.Options{}, front, g.model("secret answer"))
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		ask = id
		res := f.run(t, otherTenant, "conv-9", agent.Text("peek"))
		errs := toolErrors(res.Messages)
		is.Equal(len(errs), 2)
		for _, e := range errs {
			is.True(strings.Contains(e, "there is no background run"))
		}
		_, err := f.m.State(context.Background(), otherTenant, id)
		is.True(errors.Is(err, background.ErrNotFound))
		is.True(errors.Is(f.m.Cancel(context.Background(), otherTenant, id), background.ErrNotFound))
		st, err := f.m.State(context.Background(), tenant, id)
		is.NoErr(err)
		is.True(!st.Status.Final()) // untouched
	})
}

// A sub-agent with two requests at once: both surface, the user answers both in one run of the caller's
// conversation (one approved, one rejected), and the sub-agent's next run takes both answers.
func TestTwoRequestsAnsweredTogether(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		var mu sync.Mutex
		var read []string
		billing := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			var results []string
			for _, m := range msgs {
				for _, p := range m.Parts {
					if r, ok := p.(chat.ToolResult); ok {
						results = append(results, r.CallID+":"+string(r.Result)+r.Error)
					}
				}
			}
			if len(results) > 0 {
				mu.Lock()
				read = results
				mu.Unlock()
				return chattest.Text("done"), nil
			}
			return chattest.Calls(chattest.Call("r12", "refund", `{"invoice":12}`), chattest.Call("r13", "refund", `{"invoice":13}`)), nil
		})
		f := newFixture(t, store, background.Options{}, starter(1, "Refund 12 and 13."), billing)
		id := handleIn(f.run(t, tenant, "conv-1", agent.Text("go")).Messages)[0]
		waitFor(t, "the run to wait", func() bool {
			st, err := f.m.State(context.Background(), tenant, id)
			return err == nil && st.Status == background.StatusWaiting
		})
		waitFor(t, "the waiting report", func() bool { return len(reportsOf(t, store, tenant, "conv-1", id)) == 1 })
		cs, err := f.front.LoadConversation(context.Background(), tenant, "conv-1")
		is.NoErr(err)
		is.Equal(len(cs.Pending), 2)
		var approve, reject string
		for _, p := range cs.Pending {
			if strings.Contains(strings.ReplaceAll(string(p.Call.Arguments), " ", ""), `"invoice":12`) { // jsonb spaces it
				approve = p.ID
			} else {
				reject = p.ID
			}
		}
		f.run(t, tenant, "conv-1", agent.Approve(approve), agent.Reject(reject, "not that one"))
		st := f.final(t, tenant, "conv-1", id)
		is.Equal(st.Status, background.StatusSucceeded)
		is.Equal(f.refunds.Load(), int32(1))
		mu.Lock()
		defer mu.Unlock()
		is.Equal(read, []string{`r12:"refunded"`, "r13:not that one"})
	})
}
