package mcp_test

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// hooked runs before each model call, with the call's number from 0.
type hooked struct {
	*model
	n      int
	before func(n int)
}

func (h *hooked) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	h.before(h.n)
	h.n++
	return h.model.Respond(ctx, msgs, opts)
}

func (h *hooked) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	h.before(h.n)
	h.n++
	return h.model.Stream(ctx, msgs, opts)
}

// TestToolListChangesMidRun removes a tool from the server while a run goes on. The run keeps the tools it was
// offered when it started; a call to the removed tool reaches the server, and the model reads that the tool is
// unknown there. The next run is offered the new list.
func TestToolListChangesMidRun(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	changed := make(chan struct{}, 1)
	srv := f.connect(t, &mcp.Options{Name: "fs", Client: &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}}})
	m := &hooked{model: &model{steps: [][]chat.Part{
		{toolCall("c1", "search", `{"query":"a"}`)},
		{toolCall("c2", "fail", `{"path":"p"}`)},
		{chat.Text{Text: "done"}},
		{chat.Text{Text: "again"}},
	}}, before: func(n int) {
		if n == 1 {
			f.server.RemoveTools("fail")
			waitFor(t, changed, "notifications/tools/list_changed")
		}
	}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)
	_, err = h.Run(t.Context(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(m.offered[1], []string{"delete_file", "fail", "search", "wait"}) // the run's list, from its start
	got := m.results()["c2"].Error
	if !strings.Contains(got, `calling tool "fail" of MCP server "fs"`) || !strings.Contains(got, `unknown tool "fail"`) {
		t.Fatalf("the model read %q", got)
	}

	_, err = h.Run(t.Context(), agent.Text("go on"))
	is.NoErr(err)
	is.Equal(m.offered[3], []string{"delete_file", "search", "wait"})
}
