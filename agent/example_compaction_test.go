package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

func ExampleCompaction() {
	// A model that reads five long pages, one call a round, and reports how many results it still sees in full.
	var seen []string
	round := 0
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		full := 0
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := p.(chat.ToolResult); ok && !strings.Contains(string(r.Result), agent.ClearedResultText) {
					full++
				}
			}
		}
		seen = append(seen, fmt.Sprint(full))
		round++
		if round > 5 {
			return chattest.Text("read them all"), nil
		}
		return chattest.Calls(chattest.Call(fmt.Sprint("c", round), "read_page", `{}`)), nil
	})
	page := &toolset.Tool{
		Name: "read_page", Description: "Reads the next page.", ReadOnly: true,
		Schema: json.RawMessage(`{"type":"object"}`), State: &toolset.State{},
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return json.RawMessage(`"` + strings.Repeat("lorem ipsum ", 400) + `"`), nil // about 1200 tokens
		},
	}

	h, err := agent.NewHost(&Frontdesk{}, agent.Config{
		Client: model,
		Tools:  []toolset.Source{toolset.List{page}},
		Inner:  []chat.Middleware{agent.Compaction(agent.CompactionOptions{Budget: 4000, KeepResults: 2})},
	})
	if err != nil {
		panic(err)
	}
	res, err := h.Run(context.Background(), agent.Text("Read the five pages."))
	if err != nil {
		panic(err)
	}
	// The fifth request would hold 4 full pages, over the budget: the two oldest are cleared, down to the target
	// (three quarters of the budget). The sixth fits again with three full pages.
	fmt.Println("full results per request:", strings.Join(seen, " "))
	fmt.Println(res.Text())
	// Output:
	// full results per request: 0 1 2 3 2 3
	// read them all
}
