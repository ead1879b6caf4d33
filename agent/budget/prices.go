package budget

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

//go:embed prices.json
var defaultPrices []byte

// A Price is what one model costs, per million tokens, in its table's currency. The cache and reasoning prices
// are optional: nil means the input price for cached input (read or written) and the output price for
// reasoning.
type Price struct {
	// Provider is the provider's name, as in chat.Providers and Agent.WithModel ("openai", "anthropic", "gemini").
	Provider string `json:"provider"`
	// Model is the model's name. It also prices the model's dated snapshots: "gpt-4.1" prices
	// "gpt-4.1-2025-04-14", and "claude-3-5-haiku" prices "claude-3-5-haiku-20241022".
	Model string `json:"model"`
	// Input prices input tokens not read from or written to the prompt cache.
	Input float64 `json:"input"`
	// CacheRead prices input tokens read from the provider's prompt cache; CacheWrite those written to it.
	CacheRead  *float64 `json:"cache_read,omitempty"`
	CacheWrite *float64 `json:"cache_write,omitempty"`
	// Output prices output tokens other than reasoning; Reasoning the output tokens spent reasoning.
	Output    float64  `json:"output"`
	Reasoning *float64 `json:"reasoning,omitempty"`
}

// Prices is a price table: a Price per provider and model, in one currency, as of a date. It is read-only once
// made, and safe for concurrent use.
type Prices struct {
	currency string
	taken    time.Time
	byKey    map[priceKey]Price
}

type priceKey struct{ provider, model string }

// pricesFile is the JSON form of a table, as in prices.json.
type pricesFile struct {
	// Currency is an ISO 4217 code such as "USD".
	Currency string `json:"currency"`
	// Taken is the date the prices were read, YYYY-MM-DD.
	Taken string `json:"taken"`
	// Source says where they were read, for people.
	Source string  `json:"source,omitempty"`
	Models []Price `json:"models"`
}

// DefaultPrices returns the table the package ships (prices.json): list prices of the OpenAI, Anthropic and
// Gemini models in US dollars, as of the date [Prices.Taken] returns. Prices change: check them, and replace or
// extend the table with [ParsePrices] and [Prices.With].
func DefaultPrices() *Prices {
	p, err := ParsePrices(defaultPrices)
	if err != nil {
		panic("budget: the embedded prices.json does not parse: " + err.Error()) // a test keeps it parsing
	}
	return p
}

// ParsePrices reads a table in the JSON form of prices.json:
//
//	{"currency": "USD", "taken": "2025-11-01",
//	 "models": [{"provider": "openai", "model": "gpt-4.1", "input": 2, "cache_read": 0.5, "output": 8}]}
//
// Prices are per million tokens. It reports an error for a table without a currency or date, a price that is
// negative, not finite or above a million, a model named twice, or an unknown field.
func ParsePrices(data []byte) (*Prices, error) {
	var f pricesFile
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("budget: prices: %w", err)
	}
	if len(f.Currency) != 3 || strings.ToUpper(f.Currency) != f.Currency {
		return nil, fmt.Errorf("budget: prices: currency %q is not an ISO 4217 code such as USD", f.Currency)
	}
	taken, err := time.Parse(time.DateOnly, f.Taken)
	if err != nil {
		return nil, fmt.Errorf("budget: prices: taken %q is not a date YYYY-MM-DD", f.Taken)
	}
	p := &Prices{currency: f.Currency, taken: taken, byKey: make(map[priceKey]Price, len(f.Models))}
	for _, m := range f.Models {
		k := priceKey{m.Provider, m.Model}
		if _, dup := p.byKey[k]; dup {
			return nil, fmt.Errorf("budget: prices: %s %s is priced twice", m.Provider, m.Model)
		}
		if err := m.check(); err != nil {
			return nil, err
		}
		p.byKey[k] = m
	}
	return p, nil
}

func (m Price) check() error {
	if m.Provider == "" || m.Model == "" {
		return fmt.Errorf("budget: prices: a price needs a provider and a model (%q, %q)", m.Provider, m.Model)
	}
	for _, v := range []*float64{&m.Input, m.CacheRead, m.CacheWrite, &m.Output, m.Reasoning} {
		if v != nil && (math.IsNaN(*v) || *v < 0 || *v > 1e6) {
			return fmt.Errorf("budget: prices: %s %s: price %v is not between 0 and 1e6 per million tokens", m.Provider, m.Model, *v)
		}
	}
	return nil
}

// With returns a copy of p with these prices added, each replacing p's price of the same provider and model.
func (p *Prices) With(prices ...Price) (*Prices, error) {
	c := &Prices{currency: p.currency, taken: p.taken, byKey: maps.Clone(p.byKey)}
	for _, m := range prices {
		if err := m.check(); err != nil {
			return nil, err
		}
		c.byKey[priceKey{m.Provider, m.Model}] = m
	}
	return c, nil
}

// Currency returns the table's currency, such as "USD".
func (p *Prices) Currency() string { return p.currency }

// Taken returns the date the table's prices were read.
func (p *Prices) Taken() time.Time { return p.taken }

// Lookup returns the price of the provider's model: the model's own, or, for a dated snapshot such as
// "gpt-4.1-2025-04-14" or "claude-3-5-haiku-20241022", the price of the model it is a snapshot of. A model the
// table does not know has no price: its cost is unknown, never zero.
func (p *Prices) Lookup(provider, model string) (Price, bool) {
	if m, ok := p.byKey[priceKey{provider, model}]; ok {
		return m, true
	}
	if base, ok := snapshotOf(model); ok {
		m, ok := p.byKey[priceKey{provider, base}]
		return m, ok
	}
	return Price{}, false
}

// snapshotOf returns the model a dated snapshot name is of: the name without a suffix -YYYY-MM-DD, -YYYYMMDD or
// -NNN (a version number).
func snapshotOf(model string) (string, bool) {
	for _, pattern := range [...]string{"-dddd-dd-dd", "-dddddddd", "-ddd"} {
		n := len(model) - len(pattern)
		if n <= 0 {
			continue
		}
		ok := true
		for i := 0; i < len(pattern) && ok; i++ {
			c := model[n+i]
			if pattern[i] == 'd' {
				ok = c >= '0' && c <= '9'
			} else {
				ok = c == pattern[i]
			}
		}
		if ok {
			return model[:n], true
		}
	}
	return "", false
}

// Cost returns what a call to the provider's model that used u cost: a Cost with Unpriced 1 when the table does
// not know the model.
func (p *Prices) Cost(provider, model string, u chat.Usage) agent.Cost {
	m, ok := p.Lookup(provider, model)
	if !ok {
		return agent.Cost{Unpriced: 1}
	}
	orIn := func(v *float64, d float64) float64 {
		if v == nil {
			return d
		}
		return *v
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	out := max(u.OutputTokens-u.ReasoningTokens, 0)
	// Prices per million tokens are billionths of the currency per thousandth of a token: ×1000 per token.
	n := float64(plain)*m.Input + float64(u.CacheReadTokens)*orIn(m.CacheRead, m.Input) +
		float64(u.CacheWriteTokens)*orIn(m.CacheWrite, m.Input) + float64(out)*m.Output +
		float64(u.ReasoningTokens)*orIn(m.Reasoning, m.Output)
	return agent.Cost{Nanos: int64(math.Round(n * 1000)), Currency: p.currency}
}

// most returns the most a call with input tokens in and at most out output tokens may cost, in billionths of the
// currency, and false when the model has no price.
func (p *Prices) most(provider, model string, in, out int64) (int64, bool) {
	m, ok := p.Lookup(provider, model)
	if !ok {
		return 0, false
	}
	inPrice := max(m.Input, deref(m.CacheWrite))
	outPrice := max(m.Output, deref(m.Reasoning))
	return int64(math.Ceil((float64(in)*inPrice + float64(out)*outPrice) * 1000)), true
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}
