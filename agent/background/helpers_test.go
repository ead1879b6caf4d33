package background_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// Billing is the agent the tests run in the background.
type Billing struct{ agent.Agent }

func (a *Billing) Declare() {
	a.WithName("Billing")
	a.WithInstructions("You answer questions about invoices.")
}

// Frontdesk is the calling agent.
type Frontdesk struct{ agent.Agent }

func (a *Frontdesk) Declare() { a.WithName("Frontdesk"); a.WithInstructions("You help customers.") }

const tenant, otherTenant = "tenant-1", "tenant-2"

// eachStore runs test on the memory store and on a fresh Postgres schema.
func eachStore(t *testing.T, test func(t *testing.T, store storage.Store)) {
	t.Run("memory", func(t *testing.T) { test(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) {
		_, cfg := pgtest.Schema(t)
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if _, err := postgres.Migrate(context.Background(), pool); err != nil {
			t.Fatal(err)
		}
		s, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		test(t, s)
	})
}

// fixture is a caller (Frontdesk) that offers Billing in the background, on one store and a local queue.
type fixture struct {
	store   storage.Store
	queue   *background.LocalQueue
	m       *background.Manager
	front   *agent.Host
	billing *agent.Host
	refunds atomic.Int32 // calls of Billing's refund tool that ran
}

// newFixture builds the hosts with the two models and starts the Manager's workers for the test's life.
func newFixture(t *testing.T, store storage.Store, opts background.Options, front, billing chat.Client) *fixture {
	t.Helper()
	f := &fixture{store: store}
	refund := &toolset.Tool{
		Name: "refund", Description: "Refunds an invoice.", ID: "test.refund", RequiresApproval: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"invoice":{"type":"integer"}},"required":["invoice"]}`),
		Invoke: func(ctx context.Context, c *toolset.Call) (json.RawMessage, error) {
			f.refunds.Add(1)
			return json.RawMessage(`"refunded"`), nil
		},
		State: &toolset.State{},
	}
	var err error
	f.billing, err = agent.NewHost(&Billing{}, agent.Config{Client: billing, Store: store, Tools: []toolset.Source{toolset.List{refund}}})
	if err != nil {
		t.Fatal(err)
	}
	f.queue = background.NewLocalQueue(store, "")
	f.m = background.New(f.queue, opts)
	f.front, err = agent.NewHost(&Frontdesk{}, agent.Config{Client: front, Store: store, Tools: []toolset.Source{f.m.Tools(f.billing)}})
	if err != nil {
		t.Fatal(err)
	}
	f.m.Register(f.front)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = f.m.Work(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

// run runs the caller on conversation conv of tenant with opts.
func (f *fixture) run(t *testing.T, settingsID, conv string, opts ...agent.RunOption) *agent.Result {
	t.Helper()
	res, err := f.front.Run(context.Background(), append([]agent.RunOption{agent.SettingsID(settingsID), agent.Conversation(conv)}, opts...)...)
	if err != nil {
		t.Fatalf("caller run: %v", err)
	}
	return res
}

// waitFor polls cond until it holds; a bound, not a measure of speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// final waits for the job to end, and for its report to reach the caller's conversation, and returns its state.
func (f *fixture) final(t *testing.T, settingsID, conv, id string) background.State {
	t.Helper()
	var st background.State
	waitFor(t, "job "+id+" to end", func() bool {
		var err error
		st, err = f.m.State(context.Background(), settingsID, id)
		return err == nil && st.Status.Final()
	})
	waitFor(t, "the report of "+id, func() bool { return len(reportsOf(t, f.store, settingsID, conv, id)) > 0 })
	return st
}

// reportsOf returns the texts of the steering entries of conv that report on job id.
func reportsOf(t *testing.T, store storage.Store, settingsID, conv, id string) []string {
	t.Helper()
	entries, err := store.LoadAll(context.Background(), settingsID, conv)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type != storage.EntrySteering {
			continue
		}
		msgs, err := chat.UnmarshalMessages(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if strings.Contains(m.Text(), "[background run "+id+" ") {
				out = append(out, m.Text())
			}
		}
	}
	return out
}

// handleIn returns the handle of the start call's result in msgs.
func handleIn(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok && r.Error == "" && strings.Contains(string(r.Result), `"handle"`) {
				var v struct{ Handle string }
				if json.Unmarshal(r.Result, &v) == nil && v.Handle != "" {
					out = append(out, v.Handle)
				}
			}
		}
	}
	return out
}

// toolErrors returns the error texts of the tool results in msgs.
func toolErrors(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok && r.Error != "" {
				out = append(out, r.Error)
			}
		}
	}
	return out
}

// sees reports whether msgs hold a text with s.
func sees(msgs []chat.Message, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Text(), s) {
			return true
		}
	}
	return false
}

// gate is a model that answers once released; it records what it was asked.
type gate struct {
	release chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{release: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// model answers text once the gate opens, or fails when its context ends first.
func (g *gate) model(text string) chat.Client {
	return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		select {
		case <-g.release:
			return chattest.Text(text), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

// starter is a caller model that starts Billing with task in its first call (n starts at once) and then says
// "started"; later runs say "ok".
func starter(n int, task string) chat.Client {
	return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		last := msgs[len(msgs)-1]
		if last.Role == chat.RoleUser && last.Text() == "go" {
			var calls []chat.ToolCall
			for i := range n {
				calls = append(calls, chattest.Call("start"+string(rune('a'+i)), "start_billing", `{"task":"`+task+`"}`))
			}
			return chattest.Calls(calls...), nil
		}
		return chattest.Text("ok"), nil
	})
}
