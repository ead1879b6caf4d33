package budget_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// uncapped sets no output cap: each call is reserved for the meter's default.
type uncapped struct{ agent.Agent }

func (a *uncapped) Declare() {
	a.WithName("uncapped")
	a.WithModel("openai", "gpt-4.1-mini")
}

// TestRefusalSaysWhatTheCallReserved: a refusal names the output cap the call was reserved for and what lowers it,
// and a zero limit says it is zero rather than that the price is unknown.
func TestRefusalSaysWhatTheCallReserved(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		agent agent.Declarer
		model string
		doc   string
		want  []string
	}{
		{"the default cap", &uncapped{}, "gpt-4.1-mini", `{"day": {"tokens": 4000}}`, []string{
			"day limit of 4000 tokens would be passed",
			"the default output cap of 8192 tokens, as the call sets none,",
			"set a lower cap with WithMaxTokens in the agent's Declare",
		}},
		{"a cap of the agent's", &helper{model: "gpt-4.1-mini"}, "gpt-4.1-mini", `{"day": {"tokens": 500}}`, []string{
			"its output cap of 1000 tokens plus an estimated",
			"lower the cap with WithMaxTokens",
		}},
		{"a zero cost limit", &helper{model: "gpt-4.1-mini"}, "gpt-4.1-mini", `{"month": {"cost": 0}}`, []string{
			`month cost limit is 0, so no model call may run`,
		}},
		{"a zero cost limit and an unpriced model", &helper{model: "my-fine-tune"}, "my-fine-tune", `{"month": {"cost": 0}}`, []string{
			`month cost limit is 0`,
		}},
		{"a zero token limit", &helper{model: "gpt-4.1-mini"}, "gpt-4.1-mini", `{"day": {"tokens": 0}}`, []string{
			`day limit is 0 tokens, so no model call may run`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			store := memory.New()
			m := budget.New(&budget.Options{Store: store})
			h, err := agent.NewHost(tt.agent, agent.Config{Client: fixedUsage(tt.model), Meter: m, Store: store})
			is.NoErr(err)
			putBudget(t, store, "t1", tt.doc)
			_, err = h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"))
			var ex *budget.ExceededError
			is.True(errors.As(err, &ex)) // refused
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not say %q", err, w)
				}
			}
			is.True(!strings.Contains(err.Error(), "price is not known"))
		})
	}
}
