package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
)

func TestReportUsageFromATool(t *testing.T) {
	remote := chat.Usage{InputTokens: 500, OutputTokens: 20, TotalTokens: 520}
	remoteCost := agent.Cost{Nanos: 7000, Currency: "USD"}
	tests := []struct {
		name     string
		meter    bool
		wantCost agent.Cost
	}{
		{"without a meter", false, agent.Cost{}},
		// tokenMeter prices the run's two model calls (1 token each) at a nano a token.
		{"under a meter", true, agent.Cost{Nanos: 7002, Currency: "USD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var reported bool
			ask := tool("ask_remote", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				reported = agent.ReportUsage(ctx, remote, remoteCost)
				return json.RawMessage(`"answered"`), nil
			})
			own := func(r *chat.Response) *chat.Response { r.Usage = chat.Usage{InputTokens: 1, TotalTokens: 1}; return r }
			model := chattest.NewScript(own(chattest.Calls(chattest.Call("c1", "ask_remote", `{}`))), own(chattest.Text("ok")))
			cfg := agent.Config{}
			if tt.meter {
				cfg.Meter = &tokenMeter{allow: 5}
			}
			res, err := host(model, cfg, ask).Run(context.Background(), agent.Text("go"))
			is.NoErr(err)
			is.True(reported)
			is.Equal(res.Usage, chat.Usage{InputTokens: 502, OutputTokens: 20, TotalTokens: 522}) // two own calls and the tool's
			is.Equal(res.Cost, tt.wantCost)
		})
	}
}

func TestReportUsageOutsideARun(t *testing.T) {
	is := is.New(t)
	is.True(!agent.ReportUsage(context.Background(), chat.Usage{InputTokens: 1}, agent.Cost{}))
}
