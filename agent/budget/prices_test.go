package budget_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
)

func TestDefaultPrices(t *testing.T) {
	is := is.New(t)
	p := budget.DefaultPrices()
	is.Equal(p.Currency(), "USD")
	is.True(!p.Taken().IsZero())
	for _, tt := range []struct {
		provider, model string
		known           bool
		input           float64
	}{
		{"openai", "gpt-4.1-mini", true, 0.40},
		{"openai", "gpt-4.1-mini-2025-04-14", true, 0.40}, // a dated snapshot
		{"openai", "gpt-4.1", true, 2.00},
		{"openai", "gpt-4.1-2025-04-14", true, 2.00},
		{"anthropic", "claude-3-5-haiku-20241022", true, 0.80},
		{"anthropic", "claude-sonnet-4-20250514", true, 3.00},
		{"anthropic", "claude-sonnet-4-5", true, 3.00},
		{"openai", "gpt-4o-audio-preview", false, 0}, // not a snapshot of gpt-4o: unknown, not gpt-4o's price
		{"gemini", "gpt-4.1", false, 0},              // the provider is part of the key
		{"openai", "my-fine-tune", false, 0},
		{"openai", "-2025-04-14", false, 0},
	} {
		m, ok := p.Lookup(tt.provider, tt.model)
		is.Equal(ok, tt.known) // tt.model
		is.Equal(m.Input, tt.input)
	}
}

func TestCost(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	p, err := budget.DefaultPrices().With(budget.Price{Provider: "p", Model: "m", Input: 2, CacheRead: f(0.5), CacheWrite: f(2.5), Output: 8, Reasoning: f(10)},
		budget.Price{Provider: "p", Model: "plain", Input: 1, Output: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		model string
		u     chat.Usage
		want  agent.Cost
	}{
		{"input and output", "m", chat.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, agent.Cost{Nanos: 10e9, Currency: "USD"}},
		{"cached read and written are shares of the input", "m",
			chat.Usage{InputTokens: 1_000_000, CacheReadTokens: 500_000, CacheWriteTokens: 250_000},
			agent.Cost{Nanos: 250_000*2000 + 500_000*500 + 250_000*2500, Currency: "USD"}},
		{"reasoning is a share of the output", "m", chat.Usage{OutputTokens: 1000, ReasoningTokens: 600}, agent.Cost{Nanos: 400*8000 + 600*10000, Currency: "USD"}},
		{"without cache prices the input price", "plain", chat.Usage{InputTokens: 10, CacheReadTokens: 10, OutputTokens: 1, ReasoningTokens: 1},
			agent.Cost{Nanos: 10*1000 + 4000, Currency: "USD"}},
		{"one token of a cheap model", "plain", chat.Usage{InputTokens: 1}, agent.Cost{Nanos: 1000, Currency: "USD"}},
		{"unknown model", "nope", chat.Usage{InputTokens: 1000}, agent.Cost{Unpriced: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := p.Cost("p", tt.model, tt.u)
			is.Equal(got, tt.want)
			is.Equal(got.Known(), tt.want.Unpriced == 0)
		})
	}
}

func TestParsePricesRejects(t *testing.T) {
	for _, tt := range []struct{ name, json, want string }{
		{"no currency", `{"taken":"2025-01-01","models":[]}`, "currency"},
		{"lower-case currency", `{"currency":"usd","taken":"2025-01-01","models":[]}`, "currency"},
		{"no date", `{"currency":"USD","models":[]}`, "taken"},
		{"negative", `{"currency":"USD","taken":"2025-01-01","models":[{"provider":"a","model":"b","input":-1,"output":1}]}`, "between"},
		{"huge", `{"currency":"USD","taken":"2025-01-01","models":[{"provider":"a","model":"b","input":1e300,"output":1}]}`, "between"},
		{"twice", `{"currency":"USD","taken":"2025-01-01","models":[{"provider":"a","model":"b","input":1,"output":1},{"provider":"a","model":"b","input":2,"output":1}]}`, "twice"},
		{"no model", `{"currency":"USD","taken":"2025-01-01","models":[{"provider":"a","input":1,"output":1}]}`, "needs"},
		{"unknown field", `{"currency":"USD","taken":"2025-01-01","models":[{"provider":"a","model":"b","inptu":1}]}`, "unknown field"},
		{"not json", `{"currency":`, "prices"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := budget.ParsePrices([]byte(tt.json))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want)) // err
		})
	}
}

func TestWithReplacesAndLeavesTheOriginal(t *testing.T) {
	is := is.New(t)
	base := budget.DefaultPrices()
	p, err := base.With(budget.Price{Provider: "openai", Model: "gpt-4.1", Input: 1, Output: 1})
	is.NoErr(err)
	m, _ := p.Lookup("openai", "gpt-4.1")
	is.Equal(m.Input, 1.0)
	m, _ = base.Lookup("openai", "gpt-4.1")
	is.Equal(m.Input, 2.0)
	_, err = base.With(budget.Price{Provider: "x", Model: "y", Input: -2})
	is.True(err != nil)
}
