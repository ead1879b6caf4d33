package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
)

// BenchmarkRunCost runs streamed runs one after another, each in a conversation of its own turn after turn, and
// reports what a run costs: the process's CPU, the Postgres server's CPU and the transactions, on the Postgres
// store and as the plain program (the model's stream read and stored with one INSERT). Nothing runs beside it,
// so the figures are the cost of a run and not of waiting.
func BenchmarkRunCost(b *testing.B) {
	model := streambench.Paced{Tokens: streamTokens}
	for _, side := range []string{"pg", "plain"} {
		b.Run(side, func(b *testing.B) {
			pg := streambench.OpenPostgres(b, nil)
			h := host(model, agent.Config{Store: pg.Store})
			ctx := context.Background()
			var seq int64
			run := func(i int) error {
				id := fmt.Sprintf("c-%d", i/streamRounds) // streamRounds runs a conversation, as the streams benchmarks make
				if side == "plain" {
					resp, err := chat.Collect(model.Stream(ctx, []chat.Message{chat.UserText("go on")}, nil))
					if err != nil {
						return err
					}
					data, err := json.Marshal(resp.Messages[0])
					if err != nil {
						return err
					}
					seq++
					return pg.InsertMessage(ctx, tenant, id, seq, "run", data)
				}
				for _, err := range h.RunStream(ctx, agent.SettingsID(tenant), agent.Conversation(id), agent.Text("go on")) {
					if err != nil {
						return err
					}
				}
				return nil
			}
			for i := range 20 { // the pool's connections, the statement caches
				if err := run(i); err != nil {
					b.Fatal(err)
				}
			}
			before := pg.Counter.Counts()
			server0, ok0 := pg.Counter.ServerCPU()
			cpu0 := processCPU(b)
			i := 0
			for b.Loop() {
				if err := run(i); err != nil {
					b.Fatal(err)
				}
				i++
			}
			cpu := processCPU(b) - cpu0
			server1, ok1 := pg.Counter.ServerCPU()
			counts := pg.Counter.Counts().Sub(before)
			n := float64(b.N)
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/run")
			if ok0 && ok1 {
				b.ReportMetric(float64((server1-server0).Microseconds())/1000/n, "server-cpu-ms/run")
			}
			b.ReportMetric(float64(counts.Tx)/n, "tx/run")
			b.ReportMetric(float64(counts.Stmts)/n, "stmts/run")
		})
	}
}
