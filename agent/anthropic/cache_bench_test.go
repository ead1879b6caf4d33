package anthropic_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// cacheServer answers like the Messages API and counts usage the way its prompt cache does: the request is a
// sequence of blocks (tools, system, then the messages' blocks); a breakpoint (cache_control) writes the prefix
// that ends at it, and reads the longest prefix written before that ends at most 20 blocks before it. A prefix
// shorter than the model's minimum (1,024 tokens) is not cached. Tokens are estimated at four bytes each.
type cacheServer struct {
	mu      sync.Mutex
	cached  map[[32]byte]bool
	round   int
	read    int64 // cache_read_input_tokens over all requests
	written int64
	input   int64 // all input tokens
}

const minCacheTokens = 1024

func (s *cacheServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	data, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(data, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var blocks []map[string]any
	blocks = append(blocks, req.Tools...)
	blocks = append(blocks, req.System...)
	for _, m := range req.Messages {
		blocks = append(blocks, m.Content...)
	}
	// The prefix hash and size after each block, and the breakpoints.
	hashes := make([][32]byte, len(blocks))
	tokens := make([]int64, len(blocks))
	var marks []int
	h := sha256.New()
	var total int64
	for i, b := range blocks {
		if b["cache_control"] != nil {
			marks = append(marks, i)
		}
		delete(b, "cache_control")
		enc, _ := json.Marshal(b)
		h.Write(enc)
		copy(hashes[i][:], h.Sum(nil))
		total += providerkit.EstimateTokens(len(enc))
		tokens[i] = total
	}
	s.mu.Lock()
	var read, written int64
	for _, m := range marks {
		for p := m; p >= 0 && p >= m-20; p-- {
			if s.cached[hashes[p]] && tokens[p] > read {
				read = tokens[p]
				break
			}
		}
	}
	if n := len(marks); n > 0 && tokens[marks[n-1]] >= minCacheTokens {
		last := marks[n-1]
		if tokens[last] > read {
			written = tokens[last] - read
		}
		for _, m := range marks {
			if tokens[m] >= minCacheTokens {
				s.cached[hashes[m]] = true
			}
		}
	}
	s.read += read
	s.written += written
	s.input += total
	s.round++
	round := s.round
	s.mu.Unlock()

	text := fmt.Sprintf("Round %d: ticket %d is open; the printer on floor %d needs toner, and the technician comes on Tuesday.", round, 4700+round, round%5)
	answer := map[string]any{"id": fmt.Sprintf("msg_%d", round), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": total - read - written, "cache_read_input_tokens": read,
			"cache_creation_input_tokens": written, "output_tokens": providerkit.EstimateTokens(len(text))}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// Long is an agent with long instructions, as a production agent has.
type Long struct{ agent.Agent }

func (a *Long) Declare() {
	a.WithName("Long")
	a.WithInstructions(strings.Repeat("You help customers with their support tickets: be precise, quote the ticket's number, "+
		"say what happens next and when, and never promise what the tools cannot do. ", 30))
	a.WithModel(anthropic.ProviderName, "claude-sonnet-4-5")
}

// BenchmarkCachedShare replays a conversation of 20 rounds on a stored conversation and reports the share of
// its input tokens read from the prompt cache, with the host's cache hints (hinted) and without them (none).
func BenchmarkCachedShare(b *testing.B) {
	for _, hinted := range []bool{true, false} {
		name := map[bool]string{true: "hinted", false: "none"}[hinted]
		b.Run(name, func(b *testing.B) {
			var share, written float64
			for b.Loop() {
				s := &cacheServer{cached: map[[32]byte]bool{}}
				srv := httptest.NewServer(s)
				providers := chat.NewProviders(nil)
				anthropic.Register(providers, option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithAPIKey(testKey))
				cfg := agent.Config{Providers: providers, Store: memory.New(),
					Tools: []toolset.Source{toolset.List(benchTools())}}
				if !hinted {
					cfg.Inner = []chat.Middleware{noHints}
				}
				h, err := agent.NewHost(&Long{}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				for i := range 20 {
					_, err := h.Run(context.Background(), agent.Text(fmt.Sprintf("What about ticket %d? Please check the printer notes too.", 4700+i)),
						agent.SettingsID("t"), agent.Conversation("c"))
					if err != nil {
						b.Fatal(err)
					}
				}
				srv.Close()
				share = float64(s.read) / float64(s.input)
				written = float64(s.written) / float64(s.input)
			}
			b.ReportMetric(share, "cached/input")
			b.ReportMetric(written, "written/input")
		})
	}
}

// noHints takes the host's cache hints away, for the comparison.
func noHints(next chat.Client) chat.Client { return unhinted{next} }

type unhinted struct{ next chat.Client }

func (u unhinted) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	o := opts.Clone()
	o.CacheMessages = -1 // a mark of its own, which the host keeps; negative marks nothing
	return u.next.Respond(ctx, msgs, o)
}

func (u unhinted) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	o := opts.Clone()
	o.CacheMessages = -1
	return u.next.Stream(ctx, msgs, o)
}

func benchTools() []*toolset.Tool {
	var out []*toolset.Tool
	for _, name := range []string{"get_ticket", "search_tickets", "close_ticket", "assign_ticket"} {
		out = append(out, &toolset.Tool{Name: name, Description: "Works on support tickets: " + name + ".", ID: "bench." + name,
			Schema: json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer","description":"The ticket's number."},"note":{"type":"string"}},"required":["number"]}`),
			Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
			State:  &toolset.State{}})
	}
	return out
}
