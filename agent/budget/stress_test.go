package budget_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// The environment of a child process of the tests: what it does and the schema it works in.
const (
	envChild  = "TYPESHIFT_BUDGET_CHILD"
	envSchema = "TYPESHIFT_BUDGET_SCHEMA"
)

const (
	busyTenant, quietTenant = "busy", "quiet"
	stressRuns              = 100 // per process
	quietRuns               = 10  // per process
	stressLimit             = 60_000
)

// honest answers with a tool call, then with text, reporting as its input the meter's own estimate and 100 output
// tokens: each call uses no more than its reservation, so the tenant's spend may never pass its limit.
func honest(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	u := chat.Usage{InputTokens: budget.EstimateInput(msgs, opts), OutputTokens: 100}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	resp := chattest.Text("done")
	if msgs[len(msgs)-1].Role != chat.RoleTool {
		resp = chattest.Calls(chattest.Call("c1", "noop", `{}`))
	}
	resp.Usage = u
	return resp, nil
}

var noop = &toolset.Tool{Name: "noop", ID: "noop", Description: "does nothing", Schema: json.RawMessage(`{"type":"object"}`),
	Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil },
	State:  &toolset.State{}}

// stressHost returns a host on its own pool over the schema, metered by the budgets in it.
func stressHost(ctx context.Context, schema string, client chat.Client, ttl time.Duration) (*agent.Host, *postgres.Store, *budget.Meter, error) {
	cfg, err := pgxpool.ParseConfig(os.Getenv(pgtest.EnvURL))
	if err != nil {
		return nil, nil, nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	store, err := postgres.New(ctx, pool, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	m := budget.New(&budget.Options{Store: store})
	h, err := agent.NewHost(&helper{model: "gpt-4.1-mini"}, agent.Config{Client: client, Meter: m, Store: store,
		Tools: []toolset.Source{toolset.List([]*toolset.Tool{noop})}, LeaseTTL: ttl})
	return h, store, m, err
}

// outcome is what one process's runs did.
type outcome struct {
	Granted, Refused, Quiet int
	Tokens                  int64 // what the busy tenant's runs used, refused ones' first calls included
	Others                  []string
}

// runStress runs the process's share of the stress: stressRuns runs of the busy tenant and quietRuns of the quiet
// one, all at once, each in a conversation of its own named after prefix.
func runStress(ctx context.Context, h *agent.Host, prefix string) outcome {
	var mu sync.Mutex
	var out outcome
	var wg sync.WaitGroup
	run := func(tenant string, i int) {
		defer wg.Done()
		res, err := h.Run(ctx, agent.Text("go"), agent.SettingsID(tenant), agent.Conversation(fmt.Sprintf("%s-%d", prefix, i)))
		mu.Lock()
		defer mu.Unlock()
		switch {
		case tenant == quietTenant && err == nil:
			out.Quiet++
		case tenant == busyTenant && err == nil:
			out.Granted++
		case tenant == busyTenant && errors.Is(err, budget.ErrBudgetExceeded):
			out.Refused++
		default:
			out.Others = append(out.Others, fmt.Sprintf("%s: %v", tenant, err))
		}
		if tenant == busyTenant {
			out.Tokens += res.Usage.TotalTokens
		}
	}
	for i := range stressRuns {
		wg.Add(1)
		go run(busyTenant, i)
	}
	for i := range quietRuns {
		wg.Add(1)
		go run(quietTenant, i)
	}
	wg.Wait()
	return out
}

// TestMain lets the test binary serve as the child process of the tests below.
func TestMain(m *testing.M) {
	switch os.Getenv(envChild) {
	case "":
		os.Exit(m.Run())
	case "stress":
		ctx := context.Background()
		h, _, _, err := stressHost(ctx, os.Getenv(envSchema), chattest.FuncModel(honest), 0)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		out := runStress(ctx, h, "child")
		_ = json.NewEncoder(os.Stdout).Encode(out)
		os.Exit(0)
	case "hang":
		// One run whose model call never answers, under a short lease: the test kills the process mid-call.
		ctx := context.Background()
		hang := chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
			fmt.Println("calling")
			<-ctx.Done()
			return nil, ctx.Err()
		})
		h, _, _, err := stressHost(ctx, os.Getenv(envSchema), hang, time.Second)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		_, err = h.Run(ctx, agent.Text("go"), agent.SettingsID(busyTenant), agent.Conversation("hung"))
		fmt.Println("error:", err)
		os.Exit(1)
	}
}

// child starts this test binary as a child process doing what, on the schema.
func child(t *testing.T, what, schema string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+what, envSchema+"="+schema)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(stdout)
}

// migrated returns a fresh, migrated schema.
func migrated(t *testing.T) string {
	t.Helper()
	schema, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := postgres.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestStressTwoProcesses runs 200 runs of one tenant with a budget at once, half in this process and half in a
// child process, each on a pool of its own, beside a few runs of another tenant. The tenant's spend never passes
// its limit (each call's real usage is within its reservation, so nothing in flight may add to it), it equals
// what the runs report they used, every run's input and end are stored, and the other tenant's runs all pass.
func TestStressTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("a stress test")
	}
	pgtest.URL(t) // skips without a database
	is := is.New(t)
	ctx := t.Context()
	schema := migrated(t)
	h, store, m, err := stressHost(ctx, schema, chattest.FuncModel(honest), 0)
	is.NoErr(err)
	putBudget(t, store, busyTenant, fmt.Sprintf(`{"day": {"tokens": %d}}`, stressLimit))

	_, lines := child(t, "stress", schema)
	mine := runStress(ctx, h, "parent")
	var theirs outcome
	is.True(lines.Scan())
	is.NoErr(json.Unmarshal(lines.Bytes(), &theirs)) // the child's report

	t.Logf("granted %d+%d, refused %d+%d, tokens %d+%d of %d", mine.Granted, theirs.Granted, mine.Refused, theirs.Refused,
		mine.Tokens, theirs.Tokens, stressLimit)
	is.Equal(len(mine.Others)+len(theirs.Others), 0) // every run passed or was refused by the budget
	is.Equal(mine.Granted+mine.Refused+theirs.Granted+theirs.Refused, 2*stressRuns)
	is.True(mine.Granted+theirs.Granted > 0)
	is.True(mine.Refused+theirs.Refused > 0)
	is.Equal(mine.Quiet+theirs.Quiet, 2*quietRuns) // the other tenant is not touched

	u, err := m.Usage(ctx, busyTenant, "")
	is.NoErr(err)
	spent := u.Windows[0].Spent.Tokens
	is.True(spent <= stressLimit)               // never past the limit
	is.Equal(spent, mine.Tokens+theirs.Tokens)  // every call settled, once
	is.Equal(u.LiveRuns, int64(0))              // every run freed its place
	is.Equal(u.Reserved, storage.BudgetSpend{}) // and its reservation

	// No entry lost: each run stored its input and its end, a refused one saying why.
	for _, prefix := range []string{"parent", "child"} {
		for i := range stressRuns {
			entries, err := store.LoadAll(ctx, busyTenant, fmt.Sprintf("%s-%d", prefix, i))
			is.NoErr(err)
			is.Equal(entries[1].Type, storage.EntryInput)
			end := entries[len(entries)-1]
			is.Equal(end.Type, storage.EntryRunEnd)
			if strings.Contains(string(end.Data), `"error"`) {
				is.True(strings.Contains(string(end.Data), "day limit"))
			}
		}
	}
}

// TestKilledMidCall kills a process with -9 while its run's model call is in flight: its reservation holds the
// tenant's budget until the run's lease expires, then nothing is held and another run takes the room.
func TestKilledMidCall(t *testing.T) {
	pgtest.URL(t)
	is := is.New(t)
	ctx := t.Context()
	schema := migrated(t)
	h, store, m, err := stressHost(ctx, schema, chattest.FuncModel(honest), 0)
	is.NoErr(err)
	putBudget(t, store, busyTenant, `{"day": {"tokens": 1500}, "live_runs": 1}`) // room for one run's reservation

	cmd, lines := child(t, "hang", schema)
	is.True(lines.Scan())
	is.Equal(lines.Text(), "calling")
	u, err := m.Usage(ctx, busyTenant, "")
	is.NoErr(err)
	is.Equal(u.LiveRuns, int64(1))
	is.True(u.Reserved.Tokens > 1000)
	_, err = h.Run(ctx, agent.Text("go"), agent.SettingsID(busyTenant), agent.Conversation("meanwhile"))
	is.True(errors.Is(err, budget.ErrTooManyRuns)) // the child's run holds the tenant's one place

	is.NoErr(cmd.Process.Kill()) // SIGKILL: no settlement, no release
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		u, err = m.Usage(ctx, busyTenant, "")
		is.NoErr(err)
		if u.LiveRuns == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	is.Equal(u.LiveRuns, int64(0)) // the lease expired, and the reservation with it
	is.Equal(u.Reserved, storage.BudgetSpend{})
	_, err = h.Run(ctx, agent.Text("go"), agent.SettingsID(busyTenant), agent.Conversation("after"))
	is.NoErr(err)
}
