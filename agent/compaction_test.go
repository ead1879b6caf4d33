package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// requestTokens measures a request as the test's provider counts it: a token per four bytes of the content, the
// instructions and the tools.
func requestTokens(msgs []chat.Message, opts *chat.Options) int {
	n := len(opts.Instructions)
	for _, t := range opts.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	for _, m := range msgs {
		n += len(m.Role) + len(m.AuthorName)
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				n += len(p.Text)
			case chat.ToolCall:
				n += len(p.ID) + len(p.Name) + len(p.Arguments)
			case chat.ToolResult:
				n += len(p.CallID) + len(p.Result) + len(p.Error)
			}
		}
	}
	return (n + 3) / 4
}

// growing is a model that calls fetch (calls at a time) for a number of rounds, then answers. It reports as input
// tokens factor times what requestTokens measures, and records every request it sees.
type growing struct {
	rounds, calls int
	factor        int
	text          int // bytes of text the model writes with each round of calls

	mu       sync.Mutex
	n        int
	requests [][]chat.Message
	sizes    []int
}

func (g *growing) model() chattest.FuncModel {
	return func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		size := requestTokens(msgs, opts)
		g.requests = append(g.requests, slices.Clone(msgs))
		g.sizes = append(g.sizes, size)
		round := g.n
		g.n++
		usage := chat.Usage{InputTokens: int64(size * max(g.factor, 1)), OutputTokens: 10}
		usage.TotalTokens = usage.InputTokens + usage.OutputTokens
		if round >= g.rounds {
			return &chat.Response{Messages: chattest.Text("done").Messages, Usage: usage, FinishReason: chat.FinishStop}, nil
		}
		var parts []chat.Part
		if g.text > 0 {
			parts = append(parts, chat.Text{Text: fmt.Sprintf("round %d: %s", round, strings.Repeat("thinking ", g.text/9))})
		}
		for i := range max(g.calls, 1) {
			parts = append(parts, chattest.Call(fmt.Sprintf("r%dc%d", round, i), "fetch", fmt.Sprintf(`{"page":%d}`, round)))
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}}, Usage: usage, FinishReason: chat.FinishToolCalls}, nil
	}
}

// fetchTool returns size bytes for each call.
func fetchTool(size int) *toolset.Tool {
	return tool("fetch", func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("x", size-2) + `"`), nil
	})
}

// recorder is an Inner middleware that records what the stage below the tool loop receives.
type recorder struct {
	mu   sync.Mutex
	seen [][]chat.Message
}

func (r *recorder) middleware(next chat.Client) chat.Client {
	return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		r.mu.Lock()
		r.seen = append(r.seen, slices.Clone(msgs))
		r.mu.Unlock()
		return next.Respond(ctx, msgs, opts)
	})
}

// resultStates lists, for each tool result of msgs in order, whether compaction cleared it.
func resultStates(msgs []chat.Message) []bool {
	var out []bool
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				out = append(out, string(r.Result) == `"`+agent.ClearedResultText+`"` || r.Error == agent.ClearedResultText)
			}
		}
	}
	return out
}

// checkPairs fails unless every tool result in msgs follows its call and every call is followed by its result.
func checkPairs(t *testing.T, i int, msgs []chat.Message) {
	t.Helper()
	calls, answered := map[string]int{}, map[string]bool{}
	for at, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				calls[p.ID] = at
			case chat.ToolResult:
				c, ok := calls[p.CallID]
				if !ok || c >= at {
					t.Fatalf("request %d: the result of %s has no call before it", i, p.CallID)
				}
				answered[p.CallID] = true
			}
		}
	}
	for id := range calls {
		if !answered[id] {
			t.Fatalf("request %d: call %s has no result", i, id)
		}
	}
}

func runGrowing(t *testing.T, g *growing, fetchBytes int, inner ...chat.Middleware) *agent.Result {
	t.Helper()
	h := namedHost(t, "grower", g.model(), agent.Config{Inner: inner}, fetchTool(fetchBytes))
	res, err := h.Run(context.Background(), agent.Text("read every page"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCompactionKeepsRequestsWithinBudget(t *testing.T) {
	const budget = 2000
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			is := is.New(t)
			g := &growing{rounds: 12}
			h := namedHost(t, "grower", g.model(), agent.Config{Inner: []chat.Middleware{agent.Compaction(agent.CompactionOptions{Budget: budget, KeepResults: 2})}}, fetchTool(2000))
			var res agent.Result
			if stream {
				for _, err := range h.RunStream(context.Background(), agent.Text("read every page"), agent.ResultInto(&res)) {
					is.NoErr(err)
				}
			} else {
				r, err := h.Run(context.Background(), agent.Text("read every page"))
				is.NoErr(err)
				res = *r
			}
			is.Equal(res.Text(), "done")
			is.Equal(len(g.sizes), 13)
			for i, s := range g.sizes {
				// The estimate is calibrated by the call before, so allow it the drift of one call's framing.
				if s > budget+budget/50 {
					t.Fatalf("request %d has %d tokens, over the budget of %d: %v", i, s, budget, g.sizes)
				}
			}
			// The run itself still holds every result in full.
			for _, c := range resultStates(res.Messages) {
				is.True(!c)
			}
		})
	}

	// Without compaction the same run grows past the budget.
	g := &growing{rounds: 12}
	runGrowing(t, g, 2000)
	if g.sizes[len(g.sizes)-1] <= budget {
		t.Fatalf("without compaction the last request has %d tokens; the test needs more", g.sizes[len(g.sizes)-1])
	}
}

func TestCompactionClearsOldestResultsFirst(t *testing.T) {
	is := is.New(t)
	const keep = 3
	g := &growing{rounds: 10, calls: 2}
	runGrowing(t, g, 1200, agent.Compaction(agent.CompactionOptions{Budget: 3000, KeepResults: keep}))
	clearedSome := false
	for i, msgs := range g.requests {
		states := resultStates(msgs)
		seenKept := false
		for j, c := range states {
			if c {
				is.True(!seenKept) // a cleared result never follows a kept one
				is.True(j < len(states)-keep)
				clearedSome = true
			} else {
				seenKept = true
			}
		}
		checkPairs(t, i, msgs)
	}
	is.True(clearedSome)
}

func TestCompactionSummarisesWhenClearingIsNotEnough(t *testing.T) {
	is := is.New(t)
	const budget = 1500
	var mu sync.Mutex
	var summaries []chat.Message
	var keptFrom []int
	var summaryRequests []chattest.Request
	n := 0
	summarizer := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		summaryRequests = append(summaryRequests, chattest.Request{Messages: slices.Clone(msgs), Options: opts.Clone()})
		return &chat.Response{
			Messages: chattest.Text(fmt.Sprintf("SUMMARY-%d", n)).Messages,
			Usage:    chat.Usage{InputTokens: 5000, OutputTokens: 50, TotalTokens: 5050},
		}, nil
	})
	rec := &recorder{}
	// The model writes much text and the results are small: clearing cannot help, only a summary can.
	g := &growing{rounds: 14, text: 700}
	res := runGrowing(t, g, 20, rec.middleware, agent.Compaction(agent.CompactionOptions{
		Budget:     budget,
		Summarizer: summarizer,
		OnSummary: func(_ context.Context, s chat.Message, from int) {
			summaries = append(summaries, s)
			keptFrom = append(keptFrom, from)
		},
	}))
	is.True(len(summaries) >= 2)
	is.Equal(len(summaryRequests), len(summaries))
	for i, s := range g.sizes {
		if s > budget+budget/50 {
			t.Fatalf("request %d has %d tokens, over the budget of %d: %v", i, s, budget, g.sizes)
		}
	}

	// The summary reaches the model in place of the messages it covers, and the rest follow unchanged.
	first := slices.IndexFunc(g.requests, func(msgs []chat.Message) bool {
		return len(msgs) > 0 && strings.HasPrefix(msgs[0].Text(), agent.SummaryPrefix)
	})
	is.True(first > 0)
	is.Equal(g.requests[first][0].Text(), agent.SummaryPrefix+"SUMMARY-1")
	is.Equal(g.requests[first][0], summaries[0])
	is.Equal(g.requests[first][1:], rec.seen[first][keptFrom[0]:])
	for i, msgs := range g.requests {
		checkPairs(t, i, msgs)
	}

	// A later summary covers the earlier one; the summarizer is asked without tools, with its instructions.
	is.True(strings.Contains(summaryRequests[1].Messages[0].Text(), "SUMMARY-1"))
	is.Equal(summaryRequests[0].Options.Instructions, agent.DefaultSummaryInstructions)
	is.Equal(len(summaryRequests[0].Options.Tools), 0)

	// The summaries' tokens count towards the run's usage.
	var own int64
	for _, s := range g.sizes {
		own += int64(s)
	}
	is.Equal(res.Usage.InputTokens, own+5000*int64(len(summaries)))
}

func TestCompactionSummaryWithParallelCalls(t *testing.T) {
	// Several calls a round, results that clearing can shrink but not enough: every request keeps its pairs.
	is := is.New(t)
	g := &growing{rounds: 12, calls: 3, text: 300}
	summarised := 0
	runGrowing(t, g, 300, agent.Compaction(agent.CompactionOptions{
		Budget:      1400,
		KeepResults: 4,
		OnSummary:   func(context.Context, chat.Message, int) { summarised++ },
	}))
	is.True(summarised > 0)
	for i, msgs := range g.requests {
		checkPairs(t, i, msgs)
	}
}

func TestCompactionSummarizerFailureEndsTheRun(t *testing.T) {
	is := is.New(t)
	g := &growing{rounds: 10, text: 900}
	failing := chattest.NewScript().Fail(errors.New("summarizer down"))
	h := namedHost(t, "grower", g.model(), agent.Config{Inner: []chat.Middleware{agent.Compaction(agent.CompactionOptions{Budget: 1000, Summarizer: failing})}}, fetchTool(10))
	_, err := h.Run(context.Background(), agent.Text("go"))
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "compaction"))
	is.True(strings.Contains(err.Error(), "summarizer down"))
}

func TestCompactionCalibration(t *testing.T) {
	// The provider counts three times what bytes/4 says: after its first report, the estimate follows it and the
	// run is compacted; a provider that agrees with bytes/4 leaves the same run alone.
	tests := []struct {
		factor      int
		wantCleared bool
	}{
		{1, false},
		{3, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("factor=%d", tt.factor), func(t *testing.T) {
			is := is.New(t)
			g := &growing{rounds: 6, factor: tt.factor}
			runGrowing(t, g, 400, agent.Compaction(agent.CompactionOptions{Budget: 1000, KeepResults: 1}))
			cleared := false
			for _, msgs := range g.requests {
				cleared = cleared || slices.Contains(resultStates(msgs), true)
			}
			is.Equal(cleared, tt.wantCleared)
			if tt.factor == 1 {
				is.True(slices.Max(g.sizes)*3 > 1000) // so the same run, counted three times over, passes the budget
			}
		})
	}
}

func TestCompactionOffWithoutBudget(t *testing.T) {
	is := is.New(t)
	model := chattest.NewScript(chattest.Text("hi"))
	c := agent.Compaction(agent.CompactionOptions{})(model)
	is.Equal(c, chat.Client(model))
}

func TestCompactionStoresSummaryInConversation(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	summarizer := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text("they read pages 0 to 5"), nil
	})
	g := &growing{rounds: 10, text: 700}
	h := namedHost(t, "grower", g.model(), agent.Config{
		Store: store,
		Inner: []chat.Middleware{agent.Compaction(agent.CompactionOptions{Budget: 1500, Summarizer: summarizer, OnSummary: agent.StoreSummary})},
	}, fetchTool(20))
	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("conv-1")}
	_, err := h.Run(ctx, append(conv, agent.Text("read every page"))...)
	is.NoErr(err)

	// Every step was stored in full; loading starts from the last summary.
	all, err := store.LoadAll(ctx, "tenant-1", "conv-1")
	is.NoErr(err)
	summaries := 0
	for _, e := range all {
		if e.Type == storage.EntrySummary {
			summaries++
		}
	}
	is.True(summaries > 0)
	from, err := store.Load(ctx, "tenant-1", "conv-1")
	is.NoErr(err)
	is.Equal(from[0].Type, storage.EntrySummary)

	// The conversation's next run starts from the summary.
	g.rounds = g.n // answer at once
	_, err = h.Run(ctx, append(conv, agent.Text("and now?"))...)
	is.NoErr(err)
	next := g.requests[len(g.requests)-1]
	is.True(strings.HasPrefix(next[0].Text(), agent.SummaryPrefix+"they read pages"))
	is.Equal(next[len(next)-1].Text(), "and now?")
	checkPairs(t, len(g.requests)-1, next)
}

// A host with a store records each summary of its compaction in the run's conversation, once, whether or not
// OnSummary is StoreSummary, and whatever else Config.Inner holds.
func TestCompactionSummariesStoredByTheHost(t *testing.T) {
	passThrough := func(next chat.Client) chat.Client { return next }
	wrapping := func(next chat.Client) chat.Client {
		return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			return next.Respond(ctx, msgs, opts)
		})
	}
	cases := []struct {
		name  string
		store bool // OnSummary also calls StoreSummary
		outer chat.Middleware
	}{
		{name: "no hook", store: false},
		{name: "StoreSummary", store: true},
		{name: "StoreSummary below a pass-through", store: true, outer: passThrough},
		{name: "StoreSummary below another middleware", store: true, outer: wrapping},
		{name: "no hook below another middleware", store: false, outer: wrapping},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			store := memory.New()
			summarizer := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
				return chattest.Text("they read some pages"), nil
			})
			written := 0
			comp := agent.Compaction(agent.CompactionOptions{Budget: 1500, Summarizer: summarizer,
				OnSummary: func(ctx context.Context, summary chat.Message, keptFrom int) {
					written++
					if tc.store {
						agent.StoreSummary(ctx, summary, keptFrom)
					}
				}})
			inner := []chat.Middleware{comp}
			if tc.outer != nil {
				inner = []chat.Middleware{tc.outer, comp}
			}
			g := &growing{rounds: 24, text: 700}
			h := namedHost(t, "grower", g.model(), agent.Config{Store: store, Inner: inner}, fetchTool(20))
			_, err := h.Run(ctx, agent.Text("read every page"), agent.SettingsID("tenant-1"), agent.Conversation("conv-1"))
			is.NoErr(err)

			all, err := store.LoadAll(ctx, "tenant-1", "conv-1")
			is.NoErr(err)
			stored := 0
			for _, e := range all {
				if e.Type == storage.EntrySummary {
					stored++
				}
			}
			is.True(written > 1)
			is.Equal(stored, written) // each summary stored once
			from, err := store.Load(ctx, "tenant-1", "conv-1")
			is.NoErr(err)
			is.Equal(from[0].Type, storage.EntrySummary) // later runs load from the last summary
		})
	}
}

func TestCompactionKeepsCallIDsUnique(t *testing.T) {
	// The provider numbers its calls per response, so every response calls "call_0". The run makes the ids unique
	// against its whole history, including what compaction summarised away from the request.
	is := is.New(t)
	var mu sync.Mutex
	round := 0
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if opts.Instructions == agent.DefaultSummaryInstructions {
			return chattest.Text("a summary"), nil
		}
		checkPairs(t, round, msgs)
		round++
		if round > 12 {
			return chattest.Text("done"), nil
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Text{Text: strings.Repeat("words ", 120)},
			chattest.Call("call_0", "fetch", `{}`),
		}}}}, nil
	})
	summaries := 0
	h := namedHost(t, "grower", model, agent.Config{Inner: []chat.Middleware{agent.Compaction(agent.CompactionOptions{
		Budget: 1200, OnSummary: func(context.Context, chat.Message, int) { summaries++ },
	})}}, fetchTool(20))
	res, err := h.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.True(summaries > 0)
	ids := map[string]bool{}
	for _, m := range res.Messages {
		for _, c := range m.ToolCalls() {
			is.True(!ids[c.ID]) // each call id once in the run's history
			ids[c.ID] = true
		}
	}
	is.Equal(len(ids), 12)
}
