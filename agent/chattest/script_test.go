package chattest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

func TestScript(t *testing.T) {
	is := is.New(t)
	boom := errors.New("boom")
	s := chattest.NewScript(
		chattest.Calls(chattest.Call("c1", "get_ticket", `{"number":4711}`)),
		chattest.Text("Ticket 4711 is open."),
	).Fail(boom)
	ctx := context.Background()
	temp := 0.5

	opts := &chat.Options{Model: "m", Temperature: &temp, Stop: []string{"x"}}
	msgs := []chat.Message{chat.UserText("Is 4711 open?")}
	r1, err := s.Respond(ctx, msgs, opts)
	is.NoErr(err)
	is.Equal(r1.FinishReason, chat.FinishToolCalls)
	is.Equal(r1.Messages[0].ToolCalls()[0].Name, "get_ticket")
	is.True(r1.Usage.TotalTokens > 0) // estimated

	opts.Stop[0] = "changed" // the script kept a copy
	r2, err := chat.Collect(s.Stream(ctx, append(msgs, r1.Messages[0]), opts))
	is.NoErr(err)
	is.Equal(r2.Messages[0].Text(), "Ticket 4711 is open.")
	is.Equal(s.Remaining(), 1)

	_, err = s.Respond(ctx, msgs, nil)
	is.True(errors.Is(err, boom))
	_, err = s.Respond(ctx, msgs, nil)
	is.True(errors.Is(err, chattest.ErrScriptDone))
	is.True(strings.Contains(err.Error(), "request 4"))

	reqs := s.Requests()
	is.Equal(len(reqs), 4)
	is.Equal(reqs[0].Options.Stop, []string{"x"})
	is.Equal(*reqs[0].Options.Temperature, 0.5)
	is.Equal(len(reqs[1].Messages), 2)
	is.Equal(reqs[1].Messages[1].ToolCalls()[0].ID, "c1")
}

func TestFuncModel(t *testing.T) {
	is := is.New(t)
	m := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		resp := chattest.Text("You said: " + msgs[len(msgs)-1].Text())
		resp.Usage = chat.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}
		return resp, nil
	})
	ctx := context.Background()
	resp, err := m.Respond(ctx, []chat.Message{chat.UserText("hello there")}, nil)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "You said: hello there")
	is.Equal(resp.Usage.TotalTokens, int64(7)) // the function's usage is kept

	var n int
	var usage chat.Usage
	var finish chat.FinishReason
	for u, err := range m.Stream(ctx, []chat.Message{chat.UserText("hello there")}, nil) {
		is.NoErr(err)
		n++
		for _, p := range u.Parts {
			if up, ok := p.(chat.UsagePart); ok {
				usage = up.Usage
			}
		}
		finish = u.FinishReason
	}
	is.Equal(n, 5) // four words, then usage
	is.Equal(usage.TotalTokens, int64(7))
	is.Equal(finish, chat.FinishStop)

	// Stopping early ends the stream.
	n = 0
	for range m.Stream(ctx, []chat.Message{chat.UserText("hello there")}, nil) {
		n++
		break
	}
	is.Equal(n, 1)
}

func TestFuncModelErrors(t *testing.T) {
	is := is.New(t)
	boom := errors.New("boom")
	failing := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) { return nil, boom })
	_, err := failing.Respond(context.Background(), nil, nil)
	is.True(errors.Is(err, boom))
	var last error
	for _, err := range failing.Stream(context.Background(), nil, nil) {
		last = err
	}
	is.True(errors.Is(last, boom))

	empty := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) { return nil, nil })
	_, err = empty.Respond(context.Background(), nil, nil)
	is.True(err != nil)
}

func TestScriptReplyFuncAndSplit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := chattest.NewScript(chattest.Text("fixed")).
		ReplyFunc(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			return chattest.Text(opts.Model + " heard " + msgs[len(msgs)-1].Text()), nil
		}).
		SplitText(func(text string) []string { return []string{"", text[:1], text[1:]} })
	lookup := &toolset.Tool{Name: "lookup"}
	opts := &chat.Options{Model: "m", Tools: []*toolset.Tool{lookup}}

	// A scripted response, split as SplitText says; the empty delta is left out.
	var deltas []string
	for u, err := range s.Stream(ctx, []chat.Message{chat.UserText("a")}, opts) {
		is.NoErr(err)
		for _, p := range u.Parts {
			if t, ok := p.(chat.Text); ok {
				deltas = append(deltas, t.Text)
			}
		}
	}
	is.Equal(deltas, []string{"f", "ixed"})

	// The function's response, written from the request.
	resp, err := s.Respond(ctx, []chat.Message{chat.UserText("b")}, opts)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "m heard b")
	is.True(resp.Usage.TotalTokens > 0) // estimated, as for a FuncModel

	reqs := s.Requests()
	is.Equal(reqs[1].ToolNames(), []string{"lookup"})
	is.True(reqs[1].Sent == opts)    // the options themselves
	is.True(reqs[1].Options != opts) // and a copy
	opts.Tools = nil                 // a caller changing its options after the call shows in Sent alone
	is.Equal(len(reqs[1].Options.Tools), 1)
	is.Equal(len(reqs[1].Sent.Tools), 0)
	is.Equal(s.Remaining(), 0)
}
