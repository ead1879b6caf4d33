package agent_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestRunStream(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	steps := []step{call(tc("1", "search", `{"q":1}`), tc("2", "close_ticket", `{"number":7}`))}
	m := script(append(steps, say("Found it."))...)
	h := host(m, agent.Config{}, echo("search"), closer(&runs))
	var res agent.Result
	var kinds []string
	for u, err := range h.RunStream(context.Background(), agent.Text("go"), agent.ResultInto(&res)) {
		is.NoErr(err)
		is.Equal(u.AuthorName, "tester")
		for _, p := range u.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				kinds = append(kinds, "call:"+p.ID)
			case chat.ApprovalRequest:
				kinds = append(kinds, "request:"+p.Call.ID)
			case chat.ToolResult:
				kinds = append(kinds, "result:"+p.CallID)
			case chat.Text:
				kinds = append(kinds, "text")
			case chat.UsagePart:
				kinds = append(kinds, "usage")
			}
		}
	}
	// The call that needs approval is never shown as a call: it arrives as a request.
	is.Equal(strings.Join(kinds, " "), "usage call:1 request:2 result:1")
	is.Equal(len(res.Pending), 1)

	// The streamed result matches the one Run returns for the same script.
	m2 := script(steps...)
	want, err := host(m2, agent.Config{}, echo("search"), closer(&runs)).Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(len(res.Messages), len(want.Messages))
	for i := range want.Messages {
		is.Equal(res.Messages[i].Role, want.Messages[i].Role)
		is.Equal(len(res.Messages[i].Parts), len(want.Messages[i].Parts))
	}
	is.Equal(res.Pending, want.Pending)
	is.Equal(res.Usage, want.Usage)

	// Approve in a streamed run: the resolved call, its result, then the model's text.
	kinds = nil
	var res2 agent.Result
	for u, err := range host(script(say("Closed.")), agent.Config{}, echo("search"), closer(&runs)).RunStream(context.Background(),
		agent.Messages(res.Messages), agent.Approve(res.Pending[0].ID), agent.ResultInto(&res2)) {
		is.NoErr(err)
		for _, p := range u.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				kinds = append(kinds, "call:"+p.ID)
			case chat.ToolResult:
				kinds = append(kinds, "result:"+p.CallID)
			case chat.Text:
				kinds = append(kinds, "text:"+p.Text)
			}
		}
	}
	is.Equal(strings.Join(kinds, " "), "call:2 result:2 text:Clo text:sed.")
	is.Equal(res2.Text(), "Closed.")
	is.Equal(runs.Load(), int32(1))
}

// blocking streams one update, then waits for its context.
type blocking struct{ started chan struct{} }

func (b *blocking) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return chat.Collect(b.Stream(ctx, msgs, opts))
}

func (b *blocking) Stream(ctx context.Context, _ []chat.Message, _ *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Let me "}}}, nil) {
			return
		}
		close(b.started)
		<-ctx.Done()
		yield(chat.Update{}, ctx.Err())
	}
}

func TestCancelMidStream(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &blocking{started: make(chan struct{})}
	go func() { <-b.started; cancel() }()
	var texts []string
	var last error
	var res agent.Result
	for u, err := range host(b, agent.Config{}).RunStream(ctx, agent.Text("x"), agent.ResultInto(&res)) {
		if err != nil {
			last = err
			continue
		}
		texts = append(texts, chat.Message{Parts: u.Parts}.Text())
	}
	is.True(errors.Is(last, context.Canceled))
	is.Equal(texts, []string{"Let me "})
	is.Equal(res.Text(), "Let me ") // what arrived is kept

	// Run, too, returns the context's error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	b2 := &blocking{started: make(chan struct{})}
	go func() { <-b2.started; cancel2() }()
	_, err := host(b2, agent.Config{}).Run(ctx2, agent.Text("x"))
	is.True(errors.Is(err, context.Canceled))
}

func TestStopReadingStream(t *testing.T) {
	is := is.New(t)
	m := script(call(tc("1", "echo", `{}`)), say("never"))
	n := 0
	for range host(m, agent.Config{}, echo("echo")).RunStream(context.Background(), agent.Text("x")) {
		n++
		break
	}
	is.Equal(n, 1)
	is.Equal(len(m.Requests()), 1) // the run stopped with the consumer
}

func TestRunMiddleware(t *testing.T) {
	is := is.New(t)
	var order []string
	mw := func(tag string) chat.Middleware {
		return func(next chat.Client) chat.Client { return &tagging{next: next, tag: tag, order: &order} }
	}
	cfg := agent.Config{Middleware: []chat.Middleware{mw("outer"), mw("inner")}}
	m := script(call(tc("1", "echo", `{}`)), say("ok"))
	res, err := host(m, cfg, echo("echo")).Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(order, []string{"outer>", "inner>", "<inner", "<outer"}) // once around the run's pass
	is.Equal(res.Text(), "ok [inner] [outer]")

	order = nil
	m2 := script(say("ok"))
	var texts []string
	for u, err := range host(m2, cfg).RunStream(context.Background(), agent.Text("x")) {
		is.NoErr(err)
		for _, p := range u.Parts {
			if t, ok := p.(chat.Text); ok {
				texts = append(texts, t.Text)
			}
		}
	}
	is.Equal(order, []string{"outer>", "inner>", "<inner", "<outer"})
	is.Equal(strings.Join(texts, "|"), "O[INNER][outer]|K[INNER][outer]") // each update passed both
}

// tagging is a run middleware that records when it runs and marks the text it passes.
type tagging struct {
	next  chat.Client
	tag   string
	order *[]string
}

func (t *tagging) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	*t.order = append(*t.order, t.tag+">")
	resp, err := t.next.Respond(ctx, msgs, opts)
	*t.order = append(*t.order, "<"+t.tag)
	if err == nil {
		last := &resp.Messages[len(resp.Messages)-1]
		last.Parts = []chat.Part{chat.Text{Text: last.Text() + " [" + t.tag + "]"}}
	}
	return resp, err
}

func (t *tagging) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		*t.order = append(*t.order, t.tag+">")
		defer func() { *t.order = append(*t.order, "<"+t.tag) }()
		for u, err := range t.next.Stream(ctx, msgs, opts) {
			if len(u.Parts) == 1 {
				if x, ok := u.Parts[0].(chat.Text); ok {
					u.Parts = []chat.Part{chat.Text{Text: strings.ToUpper(x.Text) + "[" + t.tag + "]"}}
				}
			}
			if !yield(u, err) || err != nil {
				return
			}
		}
	}
}

func TestContextProviders(t *testing.T) {
	is := is.New(t)
	note := chat.Message{Role: chat.RoleSystem, Parts: []chat.Part{chat.Text{Text: "The customer is on the gold plan."}}}
	var sawRun *toolset.Run
	provider := agent.ContextFunc(func(_ context.Context, run *toolset.Run, msgs []chat.Message) (agent.Context, error) {
		sawRun = run
		return agent.Context{Instructions: "Today is Monday.", Messages: []chat.Message{note}, Tools: []*toolset.Tool{echo("clock")}}, nil
	})
	m := script(call(tc("1", "clock", `{"t":1}`)), say("ok"))
	h := host(m, agent.Config{ContextProviders: []agent.ContextProvider{provider}}, echo("echo"))
	res, err := h.Run(context.Background(), agent.Text("x"), agent.SettingsID("tenant-1"))
	is.NoErr(err)
	is.Equal(m.Requests()[0].Options.Instructions, "Be brief.\n\nToday is Monday.")
	is.Equal(joined(m.Requests()[0].ToolNames()), "echo,clock")
	is.Equal(m.Requests()[0].Messages[0].Text(), "The customer is on the gold plan.") // the model reads it first
	is.Equal(string(lastResults(m)["1"].Result), `{"t":1}`)                           // the provider's tool runs
	is.Equal(sawRun.SettingsID, "tenant-1")
	for _, msg := range res.Messages {
		is.True(msg.Text() != note.Text()) // never part of the conversation the caller keeps
	}

	failingProvider := agent.ContextFunc(func(context.Context, *toolset.Run, []chat.Message) (agent.Context, error) {
		return agent.Context{}, errors.New("profile service down")
	})
	_, err = host(script(), agent.Config{ContextProviders: []agent.ContextProvider{failingProvider}}).Run(context.Background(), agent.Text("x"))
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "profile service down"))
}
