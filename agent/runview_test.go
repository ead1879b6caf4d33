package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// runsSeen records the run each part of a run was shown: a source asked for its tools, a filter asked about each
// tool, a tool called.
type runsSeen struct {
	mu   sync.Mutex
	seen []seenRun
}

type seenRun struct {
	by  string // "source", "filter" or "tool"
	run toolset.Run
}

func (r *runsSeen) add(by string, run *toolset.Run) {
	r.mu.Lock()
	r.seen = append(r.seen, seenRun{by, *run})
	r.mu.Unlock()
}

// take returns what was recorded, and forgets it.
func (r *runsSeen) take() []seenRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}

// recordingSource offers its tools through a filter, recording what the source, the filter and each call see.
func (r *runsSeen) source(tools ...*toolset.Tool) toolset.Source {
	for _, t := range tools {
		invoke := t.Invoke
		t.Invoke = func(ctx context.Context, c *toolset.Call) (json.RawMessage, error) {
			r.add("tool", c.Run)
			return invoke(ctx, c)
		}
	}
	src := toolset.SourceFunc(func(_ context.Context, run *toolset.Run) ([]*toolset.Tool, error) {
		r.add("source", run)
		return tools, nil
	})
	return toolset.Filter(src, func(_ context.Context, run *toolset.Run, _ *toolset.Tool) (bool, error) {
		r.add("filter", run)
		return true, nil
	})
}

// checkSeen fails unless every recorded run has the mode and agent of res, and the source, its filter and a tool
// were each seen.
func checkSeen(t *testing.T, seen []seenRun, res *agent.Result) {
	t.Helper()
	by := map[string]bool{}
	for _, s := range seen {
		by[s.by] = true
		if s.run.Mode != res.Mode || s.run.Agent != res.Agent {
			t.Errorf("the %s saw mode %q and agent %q; the run's Result has mode %q and agent %q", s.by, s.run.Mode, s.run.Agent, res.Mode, res.Agent)
		}
	}
	for _, want := range []string{"source", "filter", "tool"} {
		if !by[want] {
			t.Errorf("the %s was not asked; seen: %v", want, seen)
		}
	}
}

// TestRunViewOfResumedConversation: a run that resumes a conversation in plan mode, or one whose last agent was
// handed the conversation, shows its tools' sources, their filters and its tools the mode and agent its Result
// reports, from its first round on.
func TestRunViewOfResumedConversation(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		t.Run("plan mode", func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			var seen runsSeen
			model := chattest.NewScript(
				chattest.Text("Planning."),
				chattest.Calls(chattest.Call("l1", "look", `{}`)),
				chattest.Calls(chattest.Call("l2", "look", `{}`)),
				chattest.Text("Still planning."),
			)
			h := host(model, agent.Config{Store: s, Tools: []toolset.Source{seen.source(readOnly(echo("look")))}})
			res, err := h.Run(ctx, inConv("planned", agent.Text("plan it"), agent.Mode(agent.ModePlan))...)
			is.NoErr(err)
			is.Equal(res.Mode, agent.ModePlan)
			seen.take()

			res, err = h.Run(ctx, inConv("planned", agent.Text("go on"))...)
			is.NoErr(err)
			is.Equal(res.Mode, agent.ModePlan) // the stored mode
			is.Equal(res.Text(), "Still planning.")
			checkSeen(t, seen.take(), res)
		})

		t.Run("handed off", func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			var seen runsSeen
			look := seen.source(readOnly(echo("look")))
			billingModel := chattest.NewScript(
				chattest.Text("Billing here."),
				chattest.Calls(chattest.Call("l1", "look", `{}`)),
				chattest.Calls(chattest.Call("l2", "look", `{}`)),
				chattest.Text("Still billing."),
			)
			billing := namedHost(t, "billing", billingModel, agent.Config{Store: s, Tools: []toolset.Source{look}})
			frontModel := chattest.NewScript(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`)))
			front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: s, Tools: []toolset.Source{look},
				Handoffs: []agent.Handoff{{To: billing}}})
			res, err := front.Run(ctx, inConv("handed", agent.Text("invoice?"), agent.Mode(agent.ModePlan))...)
			is.NoErr(err)
			is.Equal(res.Agent, "billing")
			seen.take()

			res, err = front.Run(ctx, inConv("handed", agent.Text("and the other one?"))...)
			is.NoErr(err)
			is.Equal(res.Agent, "billing")
			is.Equal(res.Mode, agent.ModePlan)
			is.Equal(res.Text(), "Still billing.")
			is.Equal(len(frontModel.Requests()), 1) // the front desk's model is not called
			checkSeen(t, seen.take(), res)
		})
	})
}

// TestRunViewIsACopy: what a source, a context provider and a tool are given of the run is theirs: writing to it
// changes nothing of the run, neither its mode, its agent nor what the next round's tools see.
func TestRunViewIsACopy(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var seen runsSeen
	scribble := func(run *toolset.Run) {
		run.Mode, run.Agent, run.RunID, run.SettingsID, run.ConversationID = agent.ModePlan, "mallory", "forged", "other", "other"
	}
	writer := tool("write", func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	writer.Invoke = func(_ context.Context, c *toolset.Call) (json.RawMessage, error) {
		scribble(c.Run)
		return json.RawMessage(`{}`), nil
	}
	writing := toolset.SourceFunc(func(_ context.Context, run *toolset.Run) ([]*toolset.Tool, error) {
		scribble(run)
		return []*toolset.Tool{writer}, nil
	})
	model := chattest.NewScript(
		chattest.Calls(chattest.Call("w1", "write", `{}`)),
		chattest.Calls(chattest.Call("r1", "read", `{}`)),
		chattest.Text("done"),
	)
	h := host(model, agent.Config{
		Store: memory.New(),
		// The writing source comes last: the composition hands its sources one run, in turn (toolset.Combine).
		Tools: []toolset.Source{seen.source(echo("read")), writing},
		ContextProviders: []agent.ContextProvider{agent.ContextFunc(func(_ context.Context, run *toolset.Run, _ []chat.Message) (agent.Context, error) {
			scribble(run)
			return agent.Context{}, nil
		})},
	})
	res, err := h.Run(ctx, inConv("copied", agent.Text("hi"))...)
	is.NoErr(err)
	is.Equal(res.Text(), "done")
	is.Equal(res.Mode, "")
	is.Equal(res.Agent, "tester")
	got := seen.take()
	checkSeen(t, got, res)
	for _, s := range got {
		is.Equal(s.run.SettingsID, tenant)
		is.Equal(s.run.ConversationID, "copied")
		is.True(s.run.RunID != "forged")
	}
}
