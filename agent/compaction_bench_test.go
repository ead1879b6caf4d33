package agent_test

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// fixedModel answers every request at once with the same response and reports no usage, so that the benchmark
// measures the compaction alone.
type fixedModel struct{ resp chat.Response }

func (m *fixedModel) Respond(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
	r := m.resp
	return &r, nil
}

func (m *fixedModel) Stream(context.Context, []chat.Message, *chat.Options) iter.Seq2[chat.Update, error] {
	return func(func(chat.Update, error) bool) {}
}

// benchConversation is a run's request after rounds rounds of one call with a result of resultBytes.
func benchConversation(rounds, resultBytes int) []chat.Message {
	msgs := []chat.Message{chat.UserText("read every page")}
	result := []byte(`"` + strings.Repeat("x", resultBytes-2) + `"`)
	for i := range rounds {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "fetch", Arguments: []byte(`{"page":1}`)}}},
			chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: id, Result: result}}})
	}
	return msgs
}

// BenchmarkCompaction measures what compaction adds to each model call of a run whose request holds 100 rounds
// (201 messages, 100 KiB of results): under the budget, where it only estimates; over it with the results
// already cleared; and with a summary in place, which it checks still covers the same messages.
func BenchmarkCompaction(b *testing.B) {
	msgs := benchConversation(100, 1024)
	model := &fixedModel{resp: *chatText("ok")}
	opts := &chat.Options{Model: "m", Instructions: "Be brief."}
	cases := []struct {
		name string
		o    agent.CompactionOptions
	}{
		{"under-budget", agent.CompactionOptions{Budget: 1 << 20}},
		{"results-cleared", agent.CompactionOptions{Budget: 10_000, KeepResults: 3}},
		{"summary-reused", agent.CompactionOptions{Budget: 4_000, KeepResults: 3, Summarizer: &fixedModel{resp: *chatText("the summary")}}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c := agent.Compaction(bc.o)(model)
			ctx := context.Background()
			if _, err := c.Respond(ctx, msgs, opts); err != nil { // the first call clears or summarises
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Respond(ctx, msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func chatText(s string) *chat.Response {
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: s}}}}}
}
