package budget_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// helper answers with text; its model is set by the test.
type helper struct {
	agent.Agent
	model string
}

func (a *helper) Declare() {
	a.WithName("helper")
	a.WithModel("openai", a.model)
	a.WithMaxTokens(1000)
}

// fixedUsage answers every call with text, as model, using 1000 input and 100 output tokens.
func fixedUsage(model string) chattest.FuncModel {
	return func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Model: model, Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "ok"}}}},
			Usage: chat.Usage{InputTokens: 1000, OutputTokens: 100, TotalTokens: 1100}, FinishReason: chat.FinishStop}, nil
	}
}

func newHost(t *testing.T, model string, client chat.Client, m *budget.Meter, store storage.Store) *agent.Host {
	t.Helper()
	h, err := agent.NewHost(&helper{model: model}, agent.Config{Client: client, Meter: m, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func putBudget(t *testing.T, s storage.SettingsStore, tenant, doc string) {
	t.Helper()
	ctx := context.Background()
	var rev int64
	if d, err := s.GetSettings(ctx, tenant, storage.BudgetKind); err == nil {
		rev = d.Revision
	}
	if _, err := s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: storage.BudgetKind, SchemaVersion: 1, Data: json.RawMessage(doc)}, rev); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetRefusesAndTheConversationGoesOn(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	reader := sdkmetric.NewManualReader()
	m := budget.New(&budget.Options{Store: store, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	h := newHost(t, "gpt-4.1-mini", fixedUsage("gpt-4.1-mini-2025-04-14"), m, store)
	putBudget(t, store, "t1", `{"day": {"tokens": 5000}}`)

	run := func(tenant string) (*agent.Result, error) {
		return h.Run(ctx, agent.Text("hi"), agent.Conversation("c"), agent.SettingsID(tenant))
	}
	for range 4 { // 4 × 1100 tokens spent; each reserves its input estimate plus 1000
		res, err := run("t1")
		is.NoErr(err)
		is.Equal(res.Cost, agent.Cost{Nanos: 1000*400 + 100*1600, Currency: "USD"}) // gpt-4.1-mini's price, from its snapshot
	}
	res, err := run("t1")
	is.True(errors.Is(err, budget.ErrBudgetExceeded))
	var ex *budget.ExceededError
	is.True(errors.As(err, &ex))
	is.Equal(ex.Window, storage.WindowDay)
	is.Equal(ex.Measure, "tokens")
	is.Equal(ex.Used, int64(4400))
	dayReset := nextUTCDay(time.Now())
	is.Equal(ex.ResetAt, dayReset)
	is.True(strings.Contains(err.Error(), "resets at "+dayReset.Format(time.RFC3339)))
	is.Equal(res.Cost, agent.Cost{})

	// The refusal is stored as the run's end, after its input: nothing is lost.
	all, err := store.LoadAll(ctx, "t1", "c")
	is.NoErr(err)
	is.Equal(all[len(all)-2].Type, storage.EntryInput)
	is.Equal(all[len(all)-1].Type, storage.EntryRunEnd)
	is.True(strings.Contains(string(all[len(all)-1].Data), "day limit of 5000 tokens"))

	// Another tenant is not touched.
	_, err = run("t2")
	is.NoErr(err)

	// The operator raises the limit: the conversation goes on, and the model sees the input the refused run kept.
	putBudget(t, store, "t1", `{"day": {"tokens": 50000}}`)
	res, err = run("t1")
	is.NoErr(err)
	is.Equal(strings.Count(messagesText(res.Messages), "hi"), 6)

	u, err := m.Usage(ctx, "t1", "c")
	is.NoErr(err)
	is.Equal(u.Windows[0].Window, storage.WindowDay)
	is.Equal(u.Windows[0].Spent.Tokens, int64(5*1100))
	is.Equal(u.Windows[2].Spent.Tokens, int64(5*1100))
	is.Equal(u.LiveRuns, int64(0))

	// The cost metric counts every priced call by tenant.
	var rm metricdata.ResourceMetrics
	is.NoErr(reader.Collect(ctx, &rm))
	sums := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != budget.MetricCost {
				continue
			}
			for _, dp := range mt.Data.(metricdata.Sum[float64]).DataPoints {
				tenant, _ := dp.Attributes.Value(budget.AttrSettingsID)
				sums[tenant.AsString()] += dp.Value
			}
		}
	}
	is.True(sums["t1"] > 5*0.00056-1e-9 && sums["t1"] < 5*0.00056+1e-9) // sums
	is.True(sums["t2"] > 0.00056-1e-9 && sums["t2"] < 0.00056+1e-9)
}

func messagesText(msgs []chat.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text())
	}
	return b.String()
}

func TestUnknownModelIsUnpricedAndRefusedUnderACostLimit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	reader := sdkmetric.NewManualReader()
	m := budget.New(&budget.Options{Store: store, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	h := newHost(t, "my-fine-tune", fixedUsage("my-fine-tune"), m, store)

	res, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"))
	is.NoErr(err)
	is.Equal(res.Cost, agent.Cost{Unpriced: 1}) // unknown, not zero
	is.True(!res.Cost.Known())

	putBudget(t, store, "t1", `{"month": {"cost": 50}}`)
	_, err = h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"))
	var ex *budget.ExceededError
	is.True(errors.As(err, &ex))
	is.True(ex.Unpriced)
	is.Equal(ex.Window, storage.WindowMonth)
}

func TestLiveRunsPerTenant(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	m := budget.New(&budget.Options{Store: store, Defaults: budget.Limits{LiveRuns: ptr(int64(2))}})
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	slow := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		started <- struct{}{}
		<-release
		return fixedUsage("gpt-4.1")(ctx, msgs, opts)
	})
	h := newHost(t, "gpt-4.1", slow, m, store)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"), agent.Conversation(string(rune('a'+i))))
			is.NoErr(err)
		}()
	}
	<-started
	<-started
	_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"), agent.Conversation("c"))
	is.True(errors.Is(err, budget.ErrTooManyRuns))
	is.True(!errors.Is(err, budget.ErrBudgetExceeded))
	u, err := m.Usage(ctx, "t1", "")
	is.NoErr(err)
	is.Equal(u.LiveRuns, int64(2))

	// Another tenant has its own limit.
	done := make(chan error)
	go func() {
		_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID("t2"), agent.Conversation("c"))
		done <- err
	}()
	<-started
	close(release)
	is.NoErr(<-done)
	wg.Wait()

	// The runs ended: their places are free.
	_, err = h.Run(ctx, agent.Text("hi"), agent.SettingsID("t1"), agent.Conversation("c"))
	is.NoErr(err)
}

func ptr[T any](v T) *T { return &v }

// nextUTCDay returns the start of the UTC day after t's: when a day window resets.
func nextUTCDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
