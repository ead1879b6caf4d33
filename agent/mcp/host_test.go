package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/agent/mcp/internal/conformance"
	"github.com/typeshift-go/typeshift/toolset"
)

// model is a scripted chat client: each call answers with the next step and records what it was offered.
type model struct {
	mu      sync.Mutex
	steps   [][]chat.Part
	offered [][]string
	last    []chat.Message
}

func (m *model) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, t := range opts.Tools {
		names = append(names, t.Name)
	}
	m.offered = append(m.offered, names)
	m.last = append([]chat.Message(nil), msgs...)
	if len(m.steps) == 0 {
		return nil, fmt.Errorf("the script has no step left")
	}
	parts := m.steps[0]
	m.steps = m.steps[1:]
	finish := chat.FinishStop
	if len(chat.Message{Parts: parts}.ToolCalls()) > 0 {
		finish = chat.FinishToolCalls
	}
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}}, FinishReason: finish}, nil
}

func (m *model) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := m.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		for _, p := range resp.Messages[0].Parts {
			if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{p}}, nil) {
				return
			}
		}
	}
}

// results returns the tool results the model was last sent, by call id.
func (m *model) results() map[string]chat.ToolResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]chat.ToolResult{}
	for _, msg := range m.last {
		for _, p := range msg.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}

type assistant struct{ agent.Agent }

func (a *assistant) Declare() {
	a.WithName("assistant")
	a.WithModel("test", "m1")
}

func toolCall(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// TestHostRunsServerTools runs an agent over the server's tools: read-only tools run at once, the others wait for
// approval under their MCP ID, and server errors reach the model.
func TestHostRunsServerTools(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	srv := f.connect(t, &mcp.Options{Name: "files"})
	m := &model{steps: [][]chat.Part{
		{toolCall("1", "fs_search", `{"query":"old"}`), toolCall("2", "fs_delete_file", `{"path":"old.txt"}`),
			toolCall("3", "fs_fail", `{"path":"x"}`)},
		{chat.Text{Text: "deleted"}},
	}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{toolset.Prefix(srv, "fs")}})
	is.NoErr(err)

	res, err := h.Run(t.Context(), agent.Text("delete the old file"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 1)
	is.Equal(res.Pending[0].ToolID, "mcp:files:delete_file")
	is.Equal(f.calls.Load(), int64(2)) // search and fail ran; delete_file waits

	res, err = h.Run(t.Context(), agent.Messages(res.Messages), agent.Approve(res.Pending[0].ID))
	is.NoErr(err)
	is.Equal(res.Text(), "deleted")
	got := m.results()
	is.Equal(string(got["1"].Result), `{"hits":["old.txt"]}`)
	is.Equal(string(got["2"].Result), `"deleted old.txt\n1 file removed"`)
	is.Equal(got["3"].Error, "no such file: x") // the server's text, for the model
}

// TestHostPlanMode checks that plan mode offers the tools the server marks read-only, and no others.
func TestHostPlanMode(t *testing.T) {
	is := is.New(t)
	srv := newFixture(t).connect(t, nil)
	m := &model{steps: [][]chat.Part{{chat.Text{Text: "a plan"}}, {chat.Text{Text: "done"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)

	_, err = h.Run(t.Context(), agent.Text("plan it"), agent.Mode(agent.ModePlan))
	is.NoErr(err)
	_, err = h.Run(t.Context(), agent.Text("do it"))
	is.NoErr(err)
	is.Equal(m.offered[0], []string{"fail", "search", agent.ExitPlanModeTool})
	is.Equal(m.offered[1], []string{"delete_file", "fail", "search", "wait"})
}

// TestContentRoundTrip serves the generated toolset whose results are images, audio and resources, offers it
// back through an MCP client, and checks both ends: the client's tool returns the same parts, bytes included, so
// a served proxy passes them on; a run's model reads a line for each image instead of its base64, and is given
// the image itself beside the result.
func TestContentRoundTrip(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := mcp.ToolServer(&conformance.Media{}, mcp.Principal{}, nil).Connect(ctx, serverEnd, nil)
	is.NoErr(err)
	t.Cleanup(func() { _ = ss.Close() })
	srv, err := mcp.Connect(ctx, clientEnd, &mcp.Options{Name: "media"})
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })

	tools, err := srv.Tools(ctx, &toolset.Run{})
	is.NoErr(err)
	var mixed *toolset.Tool
	for _, tl := range tools {
		if tl.Name == "test_multiple_content_types" {
			mixed = tl
		}
	}
	is.True(mixed != nil)
	res, err := mixed.Call(ctx, &toolset.Call{Name: mixed.Name})
	is.NoErr(err)
	c, ok := toolset.ParseContent(res)
	is.True(ok)
	is.Equal(len(c.Parts), 4)
	is.Equal(c.Parts[0], toolset.TextPart("Multiple content types test:"))
	is.Equal(c.Parts[1].Type, toolset.ContentImage)
	is.Equal(c.Parts[1].Data, conformance.RedPixel)
	is.Equal(c.Parts[2], toolset.ResourceTextPart("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`))
	is.Equal(c.Parts[3], toolset.LinkPart("test://linked-resource", "linked", "text/plain"))

	m := &model{steps: [][]chat.Part{{toolCall("1", "test_image_content", `{}`)}, {chat.Text{Text: "a red pixel"}}}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)
	_, err = h.Run(ctx, agent.Text("show me"))
	is.NoErr(err)
	is.Equal(string(m.results()["1"].Result), fmt.Sprintf(`"[image image/png, %d bytes]"`, len(conformance.RedPixel)))
	is.Equal(m.results()["1"].Files, []chat.File{{MediaType: "image/png", Data: conformance.RedPixel}})
}
