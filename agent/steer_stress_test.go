package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// newPostgresStore returns a store over a migrated pool: the one place this package's tests build one.
func newPostgresStore(t testing.TB, pool *pgxpool.Pool) *postgres.Store {
	t.Helper()
	s, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The second process of the stress test is this test binary again, run with these variables.
const (
	envStressSchema = "TYPESHIFT_STEER_STRESS_SCHEMA"
	stressAccepted  = "accepted\t"
)

// stressRuns is how many live runs the stress test steers; half from this process, half from another.
const stressRuns = 1000

// TestSteerStress runs stressRuns conversations on Postgres, each with a run of one to three tool steps, and steers
// each at a random moment of its run: the even ones from this process, through the host that runs them, the odd
// ones from a second OS process (this test binary again) with a store of its own. Every input that Steer accepted
// must be in its conversation's stored entries once the runs have ended.
func TestSteerStress(t *testing.T) {
	if testing.Short() {
		t.Skip("the steering stress test is skipped with -short")
	}
	schema, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	store := newPostgresStore(t, pool)
	t.Cleanup(store.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// The second process reads the conversations to steer on its stdin and writes what Steer accepted.
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSteerStressProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envStressSchema+"="+schema)
	cmd.Stderr = os.Stderr
	toChild, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChild, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var childAccepted []string
	childDone := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(fromChild)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), stressAccepted); ok {
				childAccepted = append(childAccepted, line)
			}
		}
		childDone <- errors.Join(sc.Err(), cmd.Wait())
	}()

	tool := tool("step", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		time.Sleep(time.Duration(1000+rand.IntN(3000)) * time.Microsecond)
		return json.RawMessage(`{"ok":true}`), nil
	})
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		steps := 0
		for _, m := range msgs {
			if m.Role == chat.RoleTool {
				steps++
			}
		}
		if steps >= 1+len(msgs[0].Text())%3 {
			return chattest.Text("done"), nil
		}
		return chattest.Calls(chat.ToolCall{ID: fmt.Sprintf("s%d", steps), Name: "step", Arguments: json.RawMessage(`{}`)}), nil
	})
	hooked := &claimHook{Store: store}
	h := host(model, agent.Config{Store: hooked}, tool)

	var (
		mu       sync.Mutex
		accepted = map[string][]string{} // conversation -> inputs Steer accepted
		local    atomic.Int64
		wg       sync.WaitGroup
		steers   sync.WaitGroup
		slots    = make(chan struct{}, 32)
		runErrs  atomic.Int64
	)
	// Each run is steered at a random moment after its claim: before its first model call, between two, during
	// or after its last one, or after it ended (then Steer fails with ErrNotRunning and nothing is expected).
	steerAt := func(id string) {
		n := 0
		fmt.Sscanf(id, "c%d", &n)
		delay := time.Duration(rand.IntN(50000)) * time.Microsecond
		if n%2 == 1 {
			if _, err := fmt.Fprintf(toChild, "%s\t%d\n", id, delay.Microseconds()); err != nil {
				t.Errorf("telling the second process: %v", err)
			}
			return
		}
		steers.Add(1)
		go func() {
			defer steers.Done()
			time.Sleep(delay)
			text := "steer " + id
			err := h.Steer(ctx, tenant, id, chat.UserText(text))
			switch {
			case err == nil:
				local.Add(1)
				mu.Lock()
				accepted[id] = append(accepted[id], text)
				mu.Unlock()
			case !errors.Is(err, agent.ErrNotRunning):
				t.Errorf("Steer %s: %v", id, err)
			}
		}()
	}
	var childMu sync.Mutex
	hooked.after = func(id string) {
		childMu.Lock() // one writer of the pipe at a time
		defer childMu.Unlock()
		steerAt(id)
	}
	for i := range stressRuns {
		id := fmt.Sprintf("c%04d", i)
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			input := strings.Repeat("x", i%3+1)
			if _, err := h.Run(ctx, agent.Text(input), agent.SettingsID(tenant), agent.Conversation(id)); err != nil {
				runErrs.Add(1)
				t.Errorf("run %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	steers.Wait()
	toChild.Close()
	if err := <-childDone; err != nil {
		t.Fatalf("the second process: %v", err)
	}
	for _, line := range childAccepted {
		id, text, _ := strings.Cut(line, "\t")
		accepted[id] = append(accepted[id], text)
	}
	total := int(local.Load()) + len(childAccepted)
	t.Logf("%d runs, %d inputs accepted (%d in process, %d from the second process)", stressRuns, total, local.Load(), len(childAccepted))
	if local.Load() < stressRuns/10 || len(childAccepted) < stressRuns/10 {
		t.Fatalf("too few inputs accepted to mean anything: %d in process, %d across processes", local.Load(), len(childAccepted))
	}
	missing, live := 0, 0
	for id, texts := range accepted {
		all, err := store.LoadAll(ctx, tenant, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range all {
			if e.Type == storage.EntrySteering && e.RunID != "" {
				live++ // taken in by the run before a model call; the others were stored when it released
			}
		}
		stored := steeringTexts(t, store, id)
		for _, want := range texts {
			found := false
			for _, got := range stored {
				found = found || got == want
			}
			if !found {
				missing++
				t.Errorf("conversation %s: accepted input %q is not stored (stored: %q)", id, want, stored)
			}
		}
		if len(stored) != len(texts) {
			t.Errorf("conversation %s: %d steering inputs stored, %d accepted", id, len(stored), len(texts))
		}
	}
	t.Logf("%d taken in by their live run, %d stored when the run released the conversation", live, total-live)
	if missing > 0 {
		t.Fatalf("%d of %d accepted inputs lost", missing, total)
	}
}

// claimHook tells after of each conversation claimed through it.
type claimHook struct {
	storage.Store
	after func(conversationID string)
}

func (h *claimHook) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	c, err := h.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
	if err == nil {
		h.after(conversationID)
	}
	return c, err
}

// TestSteerStressProcess is the second process of TestSteerStress; without its variable it does nothing.
func TestSteerStressProcess(t *testing.T) {
	schema := os.Getenv(envStressSchema)
	if schema == "" {
		t.Skip("run by TestSteerStress as its second process")
	}
	cfg := pgtest.Config(t, schema)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := newPostgresStore(t, pool)
	defer store.Close()
	steerer := idle(store)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		id, delay, _ := strings.Cut(sc.Text(), "\t")
		var us int64
		fmt.Sscan(delay, &us)
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(us) * time.Microsecond)
			text := "steer " + id + " from afar"
			err := steerer.Steer(ctx, tenant, id, chat.UserText(text))
			switch {
			case err == nil:
				mu.Lock()
				fmt.Fprintf(out, "%s%s\t%s\n", stressAccepted, id, text)
				mu.Unlock()
			case !errors.Is(err, agent.ErrNotRunning):
				t.Errorf("Steer %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
}
