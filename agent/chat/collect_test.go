package chat_test

import (
	"errors"
	"fmt"
	"iter"
	"reflect"
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
		{"summary parts stay apart", []chat.Update{
			r(chat.Reasoning{Provider: "o", ID: "rs_1", Text: "One"}),
			r(chat.Reasoning{Provider: "o", ID: "rs_1", Text: "Tw", Index: 1}),
			r(chat.Reasoning{Provider: "o", ID: "rs_1", Text: "o", Index: 1}),
			r(chat.Reasoning{Provider: "o", ID: "rs_1", Encrypted: "enc", Index: 1}),
		}, []chat.Part{chat.Reasoning{Provider: "o", ID: "rs_1", Text: "One"},
			chat.Reasoning{Provider: "o", ID: "rs_1", Text: "Two", Index: 1, Encrypted: "enc"}}},
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
			resp, err := chat.Collect(stream(tt.updates, nil))
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

// TestCollectJoinsText checks the text Collect joins across parts, messages and an error mid-part.
func TestCollectJoinsText(t *testing.T) {
	text := func(role chat.Role, s string) chat.Update {
		return chat.Update{Role: role, Parts: []chat.Part{chat.Text{Text: s}}}
	}
	call := chat.ToolCall{ID: "c1", Name: "f"}
	tests := []struct {
		name    string
		updates []chat.Update
		err     error
		want    []chat.Message
	}{
		{"one delta", []chat.Update{text(chat.RoleAssistant, "Hi")}, nil,
			[]chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Hi"}}}}},
		{"deltas around a call", []chat.Update{
			text(chat.RoleAssistant, "a"), text(chat.RoleAssistant, "b"), text("", "c"),
			{Parts: []chat.Part{call, chat.UsagePart{Usage: chat.Usage{TotalTokens: 3}}}},
			text(chat.RoleAssistant, "d"), text(chat.RoleAssistant, "e"),
		}, nil, []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "abc"}, call, chat.Text{Text: "de"}}}}},
		{"a new role starts a message", []chat.Update{
			text(chat.RoleAssistant, "x"), text(chat.RoleAssistant, "y"), text(chat.RoleTool, "z"), text(chat.RoleTool, "w"),
		}, nil, []chat.Message{
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "xy"}}},
			{Role: chat.RoleTool, Parts: []chat.Part{chat.Text{Text: "zw"}}},
		}},
		{"an error keeps what was joined", []chat.Update{text(chat.RoleAssistant, "par"), text(chat.RoleAssistant, "tial")},
			errors.New("cut"), []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "partial"}}}}},
		{"reasoning then text", []chat.Update{
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Reasoning{Provider: "a", Text: "th"}}},
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Reasoning{Provider: "a", Text: "ink"}}},
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Reasoning{Provider: "b", Text: "other"}}},
			text(chat.RoleAssistant, "o"), text(chat.RoleAssistant, "k"),
		}, nil, []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "a", Text: "think"}, chat.Reasoning{Provider: "b", Text: "other"}, chat.Text{Text: "ok"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			resp, err := chat.Collect(stream(tt.updates, tt.err))
			is.Equal(err, tt.err)
			is.Equal(resp.Messages, tt.want)
		})
	}
}

// joinNaively is Collect as it was written first, joining a delta to the text before it with +: the reference
// FuzzCollect holds Collect to.
func joinNaively(updates []chat.Update) *chat.Response {
	resp := &chat.Response{}
	var msg *chat.Message
	for _, u := range updates {
		if u.FinishReason != "" {
			resp.FinishReason = u.FinishReason
		}
		if u.Progress != nil || u.Steering {
			continue
		}
		for _, p := range u.Parts {
			if up, ok := p.(chat.UsagePart); ok {
				resp.Usage = resp.Usage.Add(up.Usage)
				continue
			}
			if msg == nil || (u.Role != "" && u.Role != msg.Role) {
				role := u.Role
				if role == "" {
					role = chat.RoleAssistant
				}
				resp.Messages = append(resp.Messages, chat.Message{Role: role, AuthorName: u.AuthorName})
				msg = &resp.Messages[len(resp.Messages)-1]
			}
			if t, ok := p.(chat.Text); ok && len(msg.Parts) > 0 {
				if last, ok := msg.Parts[len(msg.Parts)-1].(chat.Text); ok {
					msg.Parts[len(msg.Parts)-1] = chat.Text{Text: last.Text + t.Text}
					continue
				}
			}
			if r, ok := p.(chat.Reasoning); ok && len(msg.Parts) > 0 {
				if last, ok := msg.Parts[len(msg.Parts)-1].(chat.Reasoning); ok {
					if joined, ok := chat.JoinReasoning(last, r); ok {
						msg.Parts[len(msg.Parts)-1] = joined
						continue
					}
				}
			}
			msg.Parts = append(msg.Parts, p)
		}
	}
	return resp
}

// FuzzCollect reads the input as a stream, a byte an update, and checks that Collect assembles what joining
// naively does.
func FuzzCollect(f *testing.F) {
	f.Add([]byte("aaab"))
	f.Add([]byte("aarrsaxrrtqa"))
	f.Add([]byte("aaaaauaaaaTaTTpa"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var updates []chat.Update
		for i, c := range in {
			s := string(rune('a' + i%26))
			u := chat.Update{Role: chat.RoleAssistant}
			switch c % 10 {
			case 0, 1, 2:
				u.Parts = []chat.Part{chat.Text{Text: s}}
			case 3:
				u.Role, u.Parts = "", []chat.Part{chat.Text{Text: s}, chat.Text{Text: s + s}}
			case 4:
				u.Parts = []chat.Part{chat.Reasoning{Provider: "a", Text: s}}
			case 5:
				u.Parts = []chat.Part{chat.Reasoning{Provider: "a", ID: s, Signature: s}}
			case 6:
				u.Parts = []chat.Part{chat.ToolCall{ID: s, Name: "f"}, chat.Text{Text: s}}
			case 7:
				u.Role, u.Parts = chat.RoleTool, []chat.Part{chat.Text{Text: s}}
			case 8:
				u.Parts, u.Steering = []chat.Part{chat.Text{Text: s}}, true
			case 9:
				u.Parts, u.FinishReason = []chat.Part{chat.UsagePart{Usage: chat.Usage{TotalTokens: 1}}}, chat.FinishStop
			}
			updates = append(updates, u)
		}
		resp, err := chat.Collect(func(yield func(chat.Update, error) bool) {
			for _, u := range updates {
				if !yield(u, nil) {
					return
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := joinNaively(updates); !reflect.DeepEqual(resp, want) {
			t.Fatalf("Collect: %+v\nwant:     %+v", resp, want)
		}
	})
}

// BenchmarkCollect collects a stream of text deltas of a few bytes each, as models stream them.
func BenchmarkCollect(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			updates := make([]chat.Update, n)
			for i := range updates {
				updates[i] = chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "word "}}}
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, _ := chat.Collect(func(yield func(chat.Update, error) bool) {
					for _, u := range updates {
						if !yield(u, nil) {
							return
						}
					}
				})
				if len(resp.Messages[0].Text()) != 5*n {
					b.Fatal("text lost")
				}
			}
		})
	}
}

// stream yields updates, then end if it is not nil, as a model's stream would.
func stream(updates []chat.Update, end error) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		for _, u := range updates {
			if !yield(u, nil) {
				return
			}
		}
		if end != nil {
			yield(chat.Update{}, end)
		}
	}
}
