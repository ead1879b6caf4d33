package providertest_test

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// failures is a testing.TB that keeps what a replay reports instead of failing the test.
type failures struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

func (f *failures) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *failures) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *failures) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// play replays one recording and returns what the replay reported.
func play(t *testing.T, r providertest.Replayer, recording string) []string {
	t.Helper()
	replays, err := providertest.Recorded(r.Wire)
	if err != nil {
		t.Fatal(err)
	}
	f := &failures{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, rp := range replays {
			if rp.Recording == recording {
				providertest.Play(f, r, rp)
				return
			}
		}
		f.Errorf("no replay of %s", recording)
	}()
	<-done
	return f.got
}

// mutated is a client whose answers pass through change before the caller sees them.
type mutated struct {
	chat.Client
	change func(chat.Part) chat.Part
	usage  func(chat.Usage) chat.Usage
	calls  int // answers left before it answers without asking (negative: always asks)
}

func (m *mutated) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return m.answer(func() (*chat.Response, error) { return m.Client.Respond(ctx, msgs, opts) })
}

func (m *mutated) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := m.answer(func() (*chat.Response, error) { return chat.Collect(m.Client.Stream(ctx, msgs, opts)) })
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		parts := append([]chat.Part(nil), resp.Messages[0].Parts...)
		yield(chat.Update{Role: chat.RoleAssistant, Parts: append(parts, chat.UsagePart{Usage: resp.Usage}), FinishReason: resp.FinishReason}, nil)
	}
}

// answer asks the inner client, unless the answers are used up, and changes what it answered.
func (m *mutated) answer(ask func() (*chat.Response, error)) (*chat.Response, error) {
	if m.calls == 0 {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "made up"}}}}}, nil
	}
	m.calls--
	resp, err := ask()
	if err != nil {
		return nil, err
	}
	for i, msg := range resp.Messages {
		for j, p := range msg.Parts {
			if m.change != nil {
				resp.Messages[i].Parts[j] = m.change(p)
			}
		}
	}
	if m.usage != nil {
		resp.Usage = m.usage(resp.Usage)
	}
	return resp, nil
}

func replayer(wire providertest.Wire) providertest.Replayer {
	for _, r := range replayers {
		if r.Wire == wire {
			return r
		}
	}
	panic("no replayer of " + wire)
}

// TestReplayFails shows that the replay suite catches a client that loses what the API needs back, decodes an
// answer wrongly, or stops short of the recording.
func TestReplayFails(t *testing.T) {
	cases := []struct {
		name, recording string
		wire            providertest.Wire
		mutate          func(*mutated)
		want            []string // in the failures, each
	}{
		{"anthropic thinking signature lost", "fantasy_thinking.yaml", providertest.Anthropic,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if r, ok := p.(chat.Reasoning); ok {
						r.Signature = ""
						return r
					}
					return p
				}
			},
			[]string{"the signature of reasoning 0", "interaction 2: the request differs", "signature: recorded"}},
		{"responses function call item id lost", "pydantic_thinking_with_tool_calls.yaml", providertest.Responses,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if c, ok := p.(chat.ToolCall); ok {
						c.ItemID = ""
						return c
					}
					return p
				}
			},
			[]string{"input[2].id: recorded \"fc_68c42d3e"}},
		{"gemini thought signature lost", "pydantic_streaming_tool_call_thought_signature.yaml", providertest.Gemini,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if r, ok := p.(chat.Reasoning); ok {
						r.Signature = ""
						return r
					}
					return p
				}
			},
			[]string{"thoughtSignature: recorded"}},
		{"cached tokens lost", "pydantic_cache.yaml", providertest.Anthropic,
			func(m *mutated) { m.usage = func(u chat.Usage) chat.Usage { u.CacheReadTokens = 0; return u } },
			[]string{"interaction 1: usage", "CacheReadTokens:0"}},
		{"call arguments changed", "fantasy_multi_tool.yaml", providertest.Gemini,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if c, ok := p.(chat.ToolCall); ok {
						c.Arguments = []byte(`{"a":2,"b":4}`)
						return c
					}
					return p
				}
			},
			[]string{"call 0 arguments"}},
		{"native answer changed", "pydantic_native_output.yaml", providertest.Chat,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if x, ok := p.(chat.Text); ok && strings.HasPrefix(x.Text, "{") {
						x.Text = `{"city":"Guadalajara","country":"Mexico"}`
						return x
					}
					return p
				}
			},
			[]string{`the structured answer (the text) is {"city":"Guadalajara"`}},
		{"answer tool's arguments cut", "pydantic_tool_output.yaml", providertest.Anthropic,
			func(m *mutated) {
				m.change = func(p chat.Part) chat.Part {
					if c, ok := p.(chat.ToolCall); ok && c.Name == providertest.AnswerTool {
						c.Arguments = []byte(`{"city":"Mexico City"}`)
						return c
					}
					return p
				}
			},
			[]string{"the structured answer (the arguments of the call of final_result) is {\"city\":\"Mexico City\"}"}},
		{"an interaction left", "fantasy_tool.yaml", providertest.Responses,
			func(m *mutated) { m.calls = 1 },
			[]string{"interaction 2: the client sent no request"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := replayer(c.wire)
			inner := r.New
			r.New = func(tb testing.TB, baseURL string, rp providertest.Replay) chat.Client {
				m := &mutated{Client: inner(tb, baseURL, rp), calls: -1}
				c.mutate(m)
				return m
			}
			got := strings.Join(play(t, r, c.recording), "\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the replay did not report %q; it reported:\n%s", w, got)
				}
			}
		})
	}
	t.Run("unmutated", func(t *testing.T) {
		if got := play(t, replayer(providertest.Anthropic), "fantasy_thinking.yaml"); len(got) > 0 {
			t.Errorf("the replay reported %q", got)
		}
	})
}
