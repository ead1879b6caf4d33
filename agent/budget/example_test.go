package budget_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// Assistant answers with one model call of at most 500 output tokens.
type Assistant struct{ agent.Agent }

func (a *Assistant) Declare() {
	a.WithName("assistant")
	a.WithModel("openai", "gpt-4.1-mini")
	a.WithMaxTokens(500)
}

// A tenant may spend 2,500 tokens a day. Each run uses 1,100 (1,000 in, 100 out) and reserves its input estimate
// plus its 500-token output cap first, so the third run is refused before its model call, and told when the
// day's window resets.
func Example() {
	ctx := context.Background()
	store := memory.New()
	day := int64(2500)
	meter := budget.New(&budget.Options{Store: store, Defaults: budget.Limits{Day: &budget.Limit{Tokens: &day}}})
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		resp := chattest.Text("Hello!")
		resp.Usage = chat.Usage{InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100}
		return resp, nil
	})
	host, err := agent.NewHost(&Assistant{}, agent.Config{Client: model, Store: store, Meter: meter})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 1; i <= 3; i++ {
		res, err := host.Run(ctx, agent.Text("Hi"), agent.SettingsID("tenant-42"), agent.Conversation("c-1"))
		var exceeded *budget.ExceededError
		switch {
		case errors.As(err, &exceeded):
			fmt.Printf("run %d refused: the %s %s limit of %d (%d spent, %d asked)\n", i, exceeded.Window, exceeded.Measure,
				exceeded.Limit, exceeded.Used, exceeded.Asked)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Printf("run %d cost %.6f %s\n", i, res.Cost.Amount(), res.Cost.Currency)
		}
	}
	u, _ := meter.Usage(ctx, "tenant-42", "c-1")
	for _, w := range u.Windows {
		fmt.Printf("%s: %d tokens, %.6f %s\n", w.Window, w.Spent.Tokens, float64(w.Spent.Nanos)/1e9, meter.Prices().Currency())
	}
	fmt.Println(errors.Is(storage.ErrBudgetExceeded, budget.ErrBudgetExceeded))
	// Output:
	// run 1 cost 0.000560 USD
	// run 2 cost 0.000560 USD
	// run 3 refused: the day tokens limit of 2500 (2200 spent, 529 asked)
	// day: 2200 tokens, 0.001120 USD
	// month: 2200 tokens, 0.001120 USD
	// conversation: 2200 tokens, 0.001120 USD
	// true
}
