package chat_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

func TestCollectJoinsReasoning(t *testing.T) {
	r := func(p chat.Reasoning) chat.Update {
		return chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{p}}
	}
	tests := []struct {
		name    string
		updates []chat.Update
		want    []chat.Part
	}{
		{"deltas then signature", []chat.Update{
			r(chat.Reasoning{Provider: "a", Text: "Let me "}),
			r(chat.Reasoning{Provider: "a", Text: "think."}),
			r(chat.Reasoning{Provider: "a", Signature: "sig"}),
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Done."}}},
		}, []chat.Part{chat.Reasoning{Provider: "a", Text: "Let me think.", Signature: "sig"}, chat.Text{Text: "Done."}}},
		{"a signed block ends the part", []chat.Update{
			r(chat.Reasoning{Provider: "a", Text: "one", Signature: "s1"}),
			r(chat.Reasoning{Provider: "a", Encrypted: "redacted"}),
			r(chat.Reasoning{Provider: "a", Text: "two"}),
		}, []chat.Part{
			chat.Reasoning{Provider: "a", Text: "one", Signature: "s1"},
			chat.Reasoning{Provider: "a", Encrypted: "redacted"},
			chat.Reasoning{Provider: "a", Text: "two"},
		}},
		{"ids and providers keep parts apart", []chat.Update{
			r(chat.Reasoning{Provider: "o", ID: "rs_1", Text: "x"}),
			r(chat.Reasoning{Provider: "o", ID: "rs_2", Text: "y"}),
			r(chat.Reasoning{Provider: "g", Text: "z"}),
			r(chat.Reasoning{Provider: "g", ID: "late", Encrypted: "e"}),
		}, []chat.Part{
			chat.Reasoning{Provider: "o", ID: "rs_1", Text: "x"},
			chat.Reasoning{Provider: "o", ID: "rs_2", Text: "y"},
			chat.Reasoning{Provider: "g", ID: "late", Text: "z", Encrypted: "e"},
		}},
		{"text between reasoning keeps them apart", []chat.Update{
			r(chat.Reasoning{Provider: "a", Text: "one"}),
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "t"}}},
			r(chat.Reasoning{Provider: "a", Text: "two"}),
		}, []chat.Part{chat.Reasoning{Provider: "a", Text: "one"}, chat.Text{Text: "t"}, chat.Reasoning{Provider: "a", Text: "two"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			resp, err := chat.Collect(func(yield func(chat.Update, error) bool) {
				for _, u := range tt.updates {
					if !yield(u, nil) {
						return
					}
				}
			})
			is.NoErr(err)
			is.Equal(len(resp.Messages), 1)
			is.Equal(resp.Messages[0].Parts, tt.want)
		})
	}
}

func TestUsageAdd(t *testing.T) {
	is := is.New(t)
	a := chat.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3, CacheReadTokens: 4, CacheWriteTokens: 5, ReasoningTokens: 6}
	b := chat.Usage{InputTokens: 10, OutputTokens: 20, TotalTokens: 30, CacheReadTokens: 40, CacheWriteTokens: 50, ReasoningTokens: 60}
	is.Equal(a.Add(b), chat.Usage{InputTokens: 11, OutputTokens: 22, TotalTokens: 33, CacheReadTokens: 44, CacheWriteTokens: 55, ReasoningTokens: 66})
	is.Equal(a.Add(chat.Usage{}), a)
}

// TestCollectSkipsSteering checks that steering input a stream shows is not taken for a piece of the response.
func TestCollectSkipsSteering(t *testing.T) {
	is := is.New(t)
	updates := []chat.Update{
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Looking"}}},
		{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "only open ones"}}, Steering: true},
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: " now."}}},
	}
	resp, err := chat.Collect(func(yield func(chat.Update, error) bool) {
		for _, u := range updates {
			if !yield(u, nil) {
				return
			}
		}
	})
	is.NoErr(err)
	is.Equal(len(resp.Messages), 1)
	is.Equal(resp.Messages[0].Role, chat.RoleAssistant)
	is.Equal(resp.Messages[0].Text(), "Looking now.")
}
