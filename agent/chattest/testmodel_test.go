package chattest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

var testTools = []*toolset.Tool{
	{Name: "get_ticket", Schema: json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer","minimum":1000,"maximum":9999}},"required":["number"]}`)},
	{Name: "search_tickets", Schema: json.RawMessage(schemas["strings"])},
	{Name: "ping"},
}

func TestTestModelCallsEachTool(t *testing.T) {
	is := is.New(t)
	m := chattest.NewTestModel(&chattest.TestModelOptions{Seed: 3})
	msgs := []chat.Message{chat.UserText("Look at my tickets")}
	resp, err := m.Respond(context.Background(), msgs, &chat.Options{Tools: testTools})
	is.NoErr(err)
	is.Equal(resp.FinishReason, chat.FinishToolCalls)
	calls := resp.Messages[0].ToolCalls()
	is.Equal(len(calls), 3)
	ids := map[string]bool{}
	for i, c := range calls {
		is.Equal(c.Name, testTools[i].Name)
		ids[c.ID] = true
		if testTools[i].Schema != nil {
			sch := compile(t, string(testTools[i].Schema))
			var v any
			is.NoErr(json.Unmarshal(c.Arguments, &v))
			is.NoErr(sch.Validate(v)) // arguments fit the tool's schema
		}
	}
	is.Equal(len(ids), 3) // call ids are distinct
	is.Equal(string(calls[2].Arguments), "{}")
	is.True(resp.Usage.InputTokens > 0 && resp.Usage.OutputTokens > 0)
	is.Equal(resp.Usage.TotalTokens, resp.Usage.InputTokens+resp.Usage.OutputTokens)

	// The same seed calls with the same arguments; another seed (usually) with others.
	again, err := chattest.NewTestModel(&chattest.TestModelOptions{Seed: 3}).Respond(context.Background(), msgs, &chat.Options{Tools: testTools})
	is.NoErr(err)
	is.Equal(again.Messages[0].ToolCalls(), calls)
	other, err := chattest.NewTestModel(&chattest.TestModelOptions{Seed: 4}).Respond(context.Background(), msgs, &chat.Options{Tools: testTools})
	is.NoErr(err)
	is.True(string(other.Messages[0].ToolCalls()[1].Arguments) != string(calls[1].Arguments))
}

func TestTestModelSummarisesResults(t *testing.T) {
	is := is.New(t)
	m := chattest.NewTestModel(nil)
	ctx := context.Background()
	opts := &chat.Options{Tools: testTools[:2]}
	msgs := []chat.Message{chat.UserText("go")}
	resp, err := m.Respond(ctx, msgs, opts)
	is.NoErr(err)
	calls := resp.Messages[0].ToolCalls()
	msgs = append(msgs, resp.Messages[0], chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{CallID: calls[0].ID, Result: json.RawMessage(`{"title":"Printer jam"}`)},
		chat.ToolResult{CallID: calls[1].ID, Error: "search is down"},
	}})
	final, err := m.Respond(ctx, msgs, opts)
	is.NoErr(err)
	is.Equal(final.FinishReason, chat.FinishStop)
	text := final.Messages[0].Text()
	is.Equal(text, "Tool results:\n- get_ticket returned {\"title\":\"Printer jam\"}\n- search_tickets failed: search is down")
	is.Equal(len(final.Messages[0].ToolCalls()), 0)
}

func TestTestModelOptions(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	opts := &chat.Options{Tools: testTools}

	only := chattest.NewTestModel(&chattest.TestModelOptions{Tools: []string{"ping"}, Text: "All done.", Model: "offline"})
	resp, err := only.Respond(ctx, []chat.Message{chat.UserText("hi")}, opts)
	is.NoErr(err)
	is.Equal(resp.Model, "offline")
	calls := resp.Messages[0].ToolCalls()
	is.Equal(len(calls), 1)
	is.Equal(calls[0].Name, "ping")
	msgs := []chat.Message{chat.UserText("hi"), resp.Messages[0], {Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: calls[0].ID, Result: json.RawMessage(`"pong"`)}}}}
	final, err := only.Respond(ctx, msgs, opts)
	is.NoErr(err)
	is.Equal(final.Messages[0].Text(), "All done.")

	none := chattest.NewTestModel(&chattest.TestModelOptions{Tools: []string{}})
	resp, err = none.Respond(ctx, []chat.Message{chat.UserText("hi")}, opts)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "No tools were called.")
	is.Equal(resp.FinishReason, chat.FinishStop)

	// Options name the model: that wins.
	resp, err = none.Respond(ctx, nil, &chat.Options{Model: "gpt-x"})
	is.NoErr(err)
	is.Equal(resp.Model, "gpt-x")
}

func TestTestModelBadSchema(t *testing.T) {
	is := is.New(t)
	_, err := chattest.NewTestModel(nil).Respond(context.Background(), nil, &chat.Options{Tools: []*toolset.Tool{{Name: "bad", Schema: json.RawMessage(`{"$ref":"#/nowhere"}`)}}})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `"bad"`))
}

func TestTestModelStream(t *testing.T) {
	is := is.New(t)
	m := chattest.NewTestModel(&chattest.TestModelOptions{Text: "Here is a longer answer in words."})
	ctx := context.Background()
	stream := m.Stream(ctx, []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: testTools})
	resp, err := chat.Collect(stream)
	is.NoErr(err)
	direct, err := m.Respond(ctx, []chat.Message{chat.UserText("hi")}, &chat.Options{Tools: testTools})
	is.NoErr(err)
	is.Equal(resp.Messages[0].ToolCalls(), direct.Messages[0].ToolCalls())
	is.Equal(resp.Usage, direct.Usage) // usage counted once
	is.Equal(resp.FinishReason, chat.FinishToolCalls)

	var deltas int
	for u, err := range m.Stream(ctx, []chat.Message{chat.UserText("hi")}, nil) {
		is.NoErr(err)
		for _, p := range u.Parts {
			if _, ok := p.(chat.Text); ok {
				deltas++
			}
		}
	}
	is.Equal(deltas, 7) // one per word
}

func TestTestModelCanceled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := chattest.NewTestModel(nil).Respond(ctx, nil, nil)
	is.True(errors.Is(err, context.Canceled))
	var last error
	for _, err := range chattest.NewTestModel(nil).Stream(ctx, nil, nil) {
		last = err
	}
	is.True(errors.Is(last, context.Canceled))
}
