package agent

import (
	"context"
	"iter"
	"strconv"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// quadraticUniqueIDs is the algorithm callIDs replaced, kept to check that the new one gives the same ids: each
// candidate is looked for in every message and every id given so far.
func quadraticUniqueIDs(msgs []chat.Message, calls []string) []string {
	used := func(id string, seen []string) bool {
		for _, s := range seen {
			if s == id {
				return true
			}
		}
		for _, m := range msgs {
			for _, p := range m.Parts {
				switch p := p.(type) {
				case chat.ToolCall:
					if p.ID == id {
						return true
					}
				case chat.ToolResult:
					if p.CallID == id {
						return true
					}
				}
			}
		}
		return false
	}
	var seen []string
	for _, id := range calls {
		base := id
		if base == "" {
			base = "call"
		}
		if id == "" || used(id, seen) {
			for n := 2; ; n++ {
				if c := base + "_" + strconv.Itoa(n); !used(c, seen) {
					id = c
					break
				}
			}
		}
		seen = append(seen, id)
	}
	return seen
}

// linearUniqueIDs runs calls through the uniqueCallIDs stage as one response.
func linearUniqueIDs(msgs []chat.Message, calls []string) []string {
	parts := make([]chat.Part, len(calls))
	for i, id := range calls {
		parts[i] = chat.ToolCall{ID: id, Name: "t"}
	}
	model := clientFunc(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}}}, nil
	})
	resp, _ := (&uniqueCallIDs{next: model}).Respond(context.Background(), msgs, &chat.Options{})
	out := make([]string, len(calls))
	for i, p := range resp.Messages[0].Parts {
		out[i] = p.(chat.ToolCall).ID
	}
	return out
}

// streamedUniqueIDs runs calls through the uniqueCallIDs stage as one streamed response, a call per update.
func streamedUniqueIDs(msgs []chat.Message, calls []string) []string {
	parts := make([]chat.Part, len(calls))
	for i, id := range calls {
		parts[i] = chat.ToolCall{ID: id, Name: "t"}
	}
	model := clientFunc(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}}}, nil
	})
	var out []string
	for u, err := range (&uniqueCallIDs{next: model}).Stream(context.Background(), msgs, &chat.Options{}) {
		if err != nil {
			return nil
		}
		for _, p := range u.Parts {
			out = append(out, p.(chat.ToolCall).ID)
		}
	}
	return out
}

// clientFunc is a chat.Client that answers Respond with a function.
type clientFunc func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error)

func (f clientFunc) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return f(ctx, msgs, opts)
}

func (f clientFunc) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := f(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		for _, m := range resp.Messages {
			for _, p := range m.Parts {
				if !yield(chat.Update{Role: m.Role, Parts: []chat.Part{p}}, nil) {
					return
				}
			}
		}
	}
}

// callIDAlphabet holds ids that collide with each other's renamings.
var callIDAlphabet = []string{"", "a", "a_2", "a_3", "a_2_2", "call", "call_2", "call_3", "b", "b_2", "a_10"}

// idsFrom maps bytes to a history (calls and results) and a response's call ids.
func idsFrom(data []byte) ([]chat.Message, []string) {
	var msgs []chat.Message
	var calls []string
	for i, b := range data {
		id := callIDAlphabet[int(b)%len(callIDAlphabet)]
		switch {
		case i%3 == 0 && b&0x80 != 0:
			msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "t"}}})
		case i%3 == 1 && b&0x80 != 0:
			msgs = append(msgs, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: id}}})
		default:
			calls = append(calls, id)
		}
	}
	return msgs, calls
}

func TestUniqueCallIDsAsBefore(t *testing.T) {
	history := []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "a"}, chat.ToolCall{ID: "a_2"}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "b"}}}}
	tests := []struct {
		name    string
		history []chat.Message
		calls   []string
		want    []string
	}{
		{"distinct", nil, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"repeated", nil, []string{"a", "a", "a"}, []string{"a", "a_2", "a_3"}},
		{"empty", nil, []string{"", "", "call"}, []string{"call_2", "call_3", "call"}},
		{"used in the history", history, []string{"a", "b", "a_2"}, []string{"a_3", "b_2", "a_2_2"}},
		{"a renaming taken later", nil, []string{"a", "a", "a_3", "a"}, []string{"a", "a_2", "a_3", "a_4"}},
		{"a renaming taken first", nil, []string{"a_2", "a", "a"}, []string{"a_2", "a", "a_3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(quadraticUniqueIDs(tt.history, tt.calls), tt.want)
			is.Equal(linearUniqueIDs(tt.history, tt.calls), tt.want)
			is.Equal(streamedUniqueIDs(tt.history, tt.calls), tt.want)
		})
	}
}

// FuzzUniqueCallIDs checks that the linear algorithm gives the ids the quadratic one gave, for histories and
// responses made of ids that collide with each other's renamings.
func FuzzUniqueCallIDs(f *testing.F) {
	f.Add([]byte{1, 1, 1, 2, 0x81, 0x82, 0, 0})
	f.Add([]byte{0x80, 0x85, 5, 6, 5, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		msgs, calls := idsFrom(data)
		want, got, streamed := quadraticUniqueIDs(msgs, calls), linearUniqueIDs(msgs, calls), streamedUniqueIDs(msgs, calls)
		for i := range want {
			if got[i] != want[i] || streamed[i] != want[i] {
				t.Fatalf("call %d: got %q, streamed %q, want %q (calls %q)", i, got[i], streamed[i], want[i], calls)
			}
		}
	})
}

// BenchmarkUniqueCallIDs gives unique ids to the calls of one response of 10,000 calls: all with distinct ids, and
// all with one id. The quadratic algorithm it replaced is measured beside it, for all-one-id on 2,000 calls only
// (10,000 would take about twenty minutes). See docs/performance-leases.md.
func BenchmarkUniqueCallIDs(b *testing.B) {
	distinct := make([]string, 10000)
	same := make([]string, 10000)
	for i := range distinct {
		distinct[i], same[i] = "call_"+strconv.Itoa(i), "call_0"
	}
	for _, bc := range []struct {
		name  string
		fn    func([]chat.Message, []string) []string
		calls []string
	}{
		{"linear/distinct-10000", linearUniqueIDs, distinct},
		{"linear/one-id-10000", linearUniqueIDs, same},
		{"linear/one-id-2000", linearUniqueIDs, same[:2000]},
		{"quadratic/distinct-10000", quadraticUniqueIDs, distinct},
		{"quadratic/one-id-2000", quadraticUniqueIDs, same[:2000]},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.fn(nil, bc.calls)
			}
		})
	}
}
