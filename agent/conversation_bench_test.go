package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// Fifty conversations at once, ten rounds each: a round is a run that calls a tool and answers, so it loads the
// conversation, stores its input, its two responses, its tool results and its end, and claims and releases.
const (
	benchConversations = 50
	benchRounds        = 10
)

// convRoundModel calls search when the last message is the user's, and answers once it has the result.
var convRoundModel = chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	last := msgs[len(msgs)-1]
	if last.Role == chat.RoleUser {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: fmt.Sprintf("call_%d", len(msgs)), Name: "search", Arguments: json.RawMessage(`{"q":"order"}`)}}}},
			Usage: oneUsage, FinishReason: chat.FinishToolCalls}, nil
	}
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Your order ships today."}}}},
		Usage: oneUsage, FinishReason: chat.FinishStop}, nil
})

func benchConversationsOn(b *testing.B, store func(b *testing.B) storage.Store) {
	h := host(convRoundModel, agent.Config{Store: store(b)}, echo("search"))
	ctx := context.Background()
	n := 0
	for b.Loop() {
		n++
		var wg sync.WaitGroup
		errs := make(chan error, benchConversations)
		for c := range benchConversations {
			id := fmt.Sprintf("bench-%d-%d", n, c)
			wg.Go(func() {
				for range benchRounds {
					if _, err := h.Run(ctx, agent.Text("Where is my order?"), agent.SettingsID(tenant), agent.Conversation(id)); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*benchConversations*benchRounds), "ns/round")
}

// BenchmarkConversations runs 50 concurrent conversations of 10 rounds each with the function model, against the
// memory store and against Postgres. See docs/performance-conversations.md.
func BenchmarkConversations(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		benchConversationsOn(b, func(*testing.B) storage.Store { return memory.New() })
	})
	b.Run("postgres", func(b *testing.B) {
		benchConversationsOn(b, func(b *testing.B) storage.Store { s, _ := pgStore(b); return s })
	})
	b.Run("none", func(b *testing.B) {
		// The same rounds with the caller keeping the history, for comparison.
		h := host(convRoundModel, agent.Config{}, echo("search"))
		ctx := context.Background()
		n := 0
		for b.Loop() {
			n++
			var wg sync.WaitGroup
			for range benchConversations {
				wg.Go(func() {
					var history []chat.Message
					for range benchRounds {
						res, err := h.Run(ctx, agent.Text("Where is my order?"), agent.Messages(history))
						if err != nil {
							b.Error(err)
							return
						}
						history = res.Messages
					}
				})
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*benchConversations*benchRounds), "ns/round")
	})
}
