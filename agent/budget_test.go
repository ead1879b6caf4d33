package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// tokenMeter prices a token at a nano and refuses a run's calls past allow; it records what it was asked.
type tokenMeter struct {
	mu       sync.Mutex
	allow    int // calls allowed per run
	runs     []agent.MeteredRun
	reserved int
	settled  []chat.Usage
	ended    int
}

var errRefused = errors.New("refused by the meter")

func (m *tokenMeter) Begin(_ context.Context, run agent.MeteredRun) (agent.RunMeter, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs = append(m.runs, run)
	return &tokenRun{m: m}, nil
}

type tokenRun struct {
	m     *tokenMeter
	calls int
}

func (r *tokenRun) Call(ctx context.Context, _ agent.MeteredCall, next func(context.Context) (agent.CallUsage, error)) (agent.Cost, error) {
	if r.calls >= r.m.allow {
		return agent.Cost{}, errRefused
	}
	r.calls++
	r.m.mu.Lock()
	r.m.reserved++
	r.m.mu.Unlock()
	used, err := next(ctx)
	r.m.mu.Lock()
	r.m.settled = append(r.m.settled, used.Usage)
	r.m.mu.Unlock()
	return agent.Cost{Nanos: used.Usage.TotalTokens, Currency: "USD"}, err
}

func (r *tokenRun) End(context.Context) {
	r.m.mu.Lock()
	r.m.ended++
	r.m.mu.Unlock()
}

func TestMeterPricesAndRefusesModelCalls(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "respond"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			store := memory.New()
			m := &tokenMeter{allow: 2}
			model := script(call(tc("1", "o", `{}`)), call(tc("2", "o", `{}`)), say("never"), say("later"))
			h := host(model, agent.Config{Store: store, Meter: m}, echo("o"))
			run := func() (*agent.Result, error) {
				opts := []agent.RunOption{agent.Text("go"), agent.Conversation("c1"), agent.SettingsID("t1")}
				if !stream {
					return h.Run(ctx, opts...)
				}
				var res agent.Result
				var err error
				for _, e := range h.RunStream(ctx, append(opts, agent.ResultInto(&res))...) {
					if e != nil {
						err = e
					}
				}
				return &res, err
			}
			res, err := run()
			is.True(errors.Is(err, errRefused)) // the third call is refused
			is.Equal(len(model.Requests()), 2)  // and never sent
			is.Equal(res.Cost, agent.Cost{Nanos: 2 * oneUsage.TotalTokens, Currency: "USD"})
			is.Equal(len(m.settled), 2)
			is.Equal(m.settled[1], oneUsage)
			is.Equal(m.ended, 1)
			is.Equal(len(m.runs), 1)
			is.Equal(m.runs[0].SettingsID, "t1")
			is.Equal(m.runs[0].ConversationID, "c1")
			is.True(m.runs[0].LeaseToken != "")

			all, err := store.LoadAll(ctx, "t1", "c1")
			is.NoErr(err)
			end := all[len(all)-1]
			is.Equal(end.Type, storage.EntryRunEnd)
			var data struct {
				Error string `json:"error"`
				Cost  struct {
					Nanos    int64  `json:"nanos"`
					Currency string `json:"currency"`
				} `json:"cost"`
			}
			is.NoErr(json.Unmarshal(end.Data, &data))
			is.Equal(data.Error, errRefused.Error())
			is.Equal(data.Cost.Nanos, 2*oneUsage.TotalTokens)
			is.Equal(data.Cost.Currency, "USD")

			// Nothing was lost: the conversation goes on, with both tool results in its history.
			m.allow = 5
			res, err = run()
			is.NoErr(err)
			is.Equal(res.Text(), "never")
			is.Equal(len(results(res.Messages)), 2)
		})
	}
}

func TestNoMeterNoCost(t *testing.T) {
	is := is.New(t)
	h := host(script(say("hi")), agent.Config{})
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(res.Cost, agent.Cost{})
}

// TestHandoffCost hands a run off: the Result and the run's end entry hold both agents' usage and cost, and each
// agent's meter is ended.
func TestHandoffCost(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "respond", true: "stream"}[stream], func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			store := memory.New()
			m := &tokenMeter{allow: 5}
			billingModel := chattest.NewScript(
				used(chattest.Calls(chattest.Call("b1", "lookup_invoice", `{"number":12}`))),
				used(chattest.Text("Invoice 12 was paid.")),
			)
			billing := namedHost(t, "billing", billingModel, agent.Config{Store: store, Meter: m}, echo("lookup_invoice"))
			frontModel := chattest.NewScript(used(chattest.Calls(chattest.Call("h1", "handoff_to_billing", `{}`))))
			front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: store, Meter: m, Handoffs: []agent.Handoff{{To: billing}}})

			opts := inConv("c1", agent.Text("was invoice 12 paid?"))
			var res *agent.Result
			var err error
			if stream {
				res = &agent.Result{}
				for _, e := range front.RunStream(ctx, append(opts, agent.ResultInto(res))...) {
					if e != nil {
						err = e
					}
				}
			} else {
				res, err = front.Run(ctx, opts...)
			}
			is.NoErr(err)
			is.Equal(res.Agent, "billing")
			whole := 3 * oneUsage.TotalTokens // three model calls, two agents
			is.Equal(res.Usage.TotalTokens, whole)
			is.Equal(res.Cost, agent.Cost{Nanos: whole, Currency: "USD"})
			is.Equal(len(m.runs), 2) // a meter per agent, each ended
			is.Equal(m.ended, 2)

			all, err := store.LoadAll(ctx, tenant, "c1")
			is.NoErr(err)
			end := all[len(all)-1]
			is.Equal(end.Type, storage.EntryRunEnd)
			var data struct {
				Usage struct {
					TotalTokens int64 `json:"total_tokens"`
				} `json:"usage"`
				Cost struct {
					Nanos int64 `json:"nanos"`
				} `json:"cost"`
			}
			is.NoErr(json.Unmarshal(end.Data, &data))
			is.Equal(data.Usage.TotalTokens, whole)
			is.Equal(data.Cost.Nanos, whole)
		})
	}
}
