package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

// TestConversationStoreFaults fails each write of a run in turn, the n-th for every n: the run ends with an error
// naming the conversation and what failed, and the next run loads the conversation and goes on from a history a
// provider accepts, without running an approved call twice.
func TestConversationStoreFaults(t *testing.T) {
	ctx := context.Background()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	base := memory.NewWithOptions(&memory.Options{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	for n := 1; ; n++ {
		id := "fault-" + strconv.Itoa(n)
		var runs atomic.Int32
		failing := storetest.FailAfter(base, n)
		m := script(
			call(tc("1", "search", `{"q":"a"}`)),
			call(tc("2", "close_ticket", `{"number":7}`)), // approved by auto mode, so marked as started first
			call(tc("3", "search", `{"q":"b"}`)),
			say("done"),
		)
		h := host(m, agent.Config{Store: failing, LeaseTTL: time.Minute}, echo("search"), closer(&runs))
		_, err := h.Run(ctx, agent.Text("go"), agent.SettingsID(tenant), agent.Conversation(id), agent.Mode(agent.ModeAuto))
		if len(failing.Failed()) == 0 {
			if err != nil {
				t.Fatalf("no write failed, yet: %v", err)
			}
			if n < 6 {
				t.Fatalf("a run of four model calls made only %d writes", n-1)
			}
			return
		}
		if err == nil {
			t.Fatalf("write %d (%s) failed, and the run reported nothing", n, failing.Failed()[0].Op)
		}
		if !errors.Is(err, storetest.ErrInjected) || !strings.Contains(err.Error(), `conversation "`+id+`"`) {
			t.Fatalf("write %d: the error does not say what failed: %v", n, err)
		}

		now.Add(int64(2 * time.Minute)) // past the lease of a run that could not release it
		next := script(say("recovered"))
		_, err = host(next, agent.Config{Store: base}, echo("search"), closer(&runs)).Run(ctx,
			agent.Text("status?"), agent.SettingsID(tenant), agent.Conversation(id), agent.Mode(agent.ModeAuto))
		if err != nil {
			t.Fatalf("write %d failed; the next run: %v", n, err)
		}
		if len(next.Requests()) != 1 {
			t.Fatalf("write %d failed; the next run made %d model calls", n, len(next.Requests()))
		}
		checkHistory(t, next.Requests()[0].Messages)
		if runs.Load() > 1 {
			t.Fatalf("write %d failed; close_ticket ran %d times", n, runs.Load())
		}
	}
}

// TestConversationRace starts runs on the same conversation from two stores with pools of their own, as two
// processes would, 50 times: exactly one runs, the other gets the busy error, and nothing is stored twice.
func TestConversationRace(t *testing.T) {
	a, open := pgStore(t)
	b := open()
	ctx := context.Background()
	for i := range 50 {
		id := fmt.Sprintf("race-%d", i)
		lost := make(chan struct{})
		var once sync.Once
		model := func(name string) chat.Client {
			return chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
				// The winner holds the conversation until the other run has been turned away.
				select {
				case <-lost:
				case <-time.After(5 * time.Second):
					return nil, errors.New("the other run was never turned away")
				}
				return chattest.Text("ran on " + name), nil
			})
		}
		ha := host(model("a"), agent.Config{Store: a})
		hb := host(model("b"), agent.Config{Store: b})
		start := make(chan struct{})
		errs := make(chan error, 2)
		for _, h := range []*agent.Host{ha, hb} {
			go func() {
				<-start
				_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation(id))
				if errors.Is(err, storage.ErrConversationBusy) {
					once.Do(func() { close(lost) })
				}
				errs <- err
			}()
		}
		close(start)
		busy, ok := 0, 0
		for range 2 {
			switch err := <-errs; {
			case err == nil:
				ok++
			case errors.Is(err, storage.ErrConversationBusy):
				busy++
			default:
				t.Fatalf("round %d: %v", i, err)
			}
		}
		if ok != 1 || busy != 1 {
			t.Fatalf("round %d: %d runs ran and %d were busy", i, ok, busy)
		}
		all, err := a.LoadAll(ctx, tenant, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := types(all); got != "run_start,input,response,run_end" {
			t.Fatalf("round %d stored %s", i, got)
		}
	}
}

// The crash test's child process runs the second run of a conversation against Postgres and stops at each step,
// writing "step <name>" and waiting for "go" on its input; the parent kills it with SIGKILL at one of them.
const (
	envCrashChild  = "TYPESHIFT_CRASH_CHILD"
	envCrashSchema = "TYPESHIFT_CRASH_SCHEMA"
	envCrashAnswer = "TYPESHIFT_CRASH_ANSWER"
	// crashLease is the child's lease: short, since the next run waits for it to expire, and long enough that a
	// loaded machine (the whole suite in parallel) does not starve its renewals (every third of it).
	crashLease = time.Second
)

var crashSteps = []string{"close", "model", "search", "model"}

// crashModel searches once, then answers.
func crashModel(step func(string)) chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		step("model")
		if _, ok := results(msgs)["s1"]; !ok {
			return call(tc("s1", "search", `{"q":"refund"}`))(msgs, nil)
		}
		return say("all done")(msgs, nil)
	})
}

func crashChild(t *testing.T) {
	in := bufio.NewScanner(os.Stdin)
	step := func(name string) {
		fmt.Printf("step %s\n", name)
		if !in.Scan() {
			os.Exit(3)
		}
	}
	cfg := pgtest.Config(t, os.Getenv(envCrashSchema))
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	store, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatal(err)
	}
	closeTool := needsApproval(withID(tool("close_ticket", func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		step("close")
		return a, nil
	}), "example.com/tickets.Tickets.close_ticket"))
	search := tool("search", func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		step("search")
		return a, nil
	})
	h := host(crashModel(step), agent.Config{Store: store, LeaseTTL: crashLease}, search, closeTool)
	_, err = h.Run(context.Background(), agent.Approve(os.Getenv(envCrashAnswer)), agent.SettingsID(tenant), agent.Conversation("crash"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
}

// TestConversationCrash kills a process in the middle of a run, at each of its steps: the next run, once the
// lease has expired, sees every step that was stored, and the approved call that already ran is not run again.
func TestConversationCrash(t *testing.T) {
	if os.Getenv(envCrashChild) != "" {
		crashChild(t)
		return
	}
	for k := range len(crashSteps) + 1 {
		name := "finish"
		if k < len(crashSteps) {
			name = fmt.Sprintf("kill at %s %d", crashSteps[k], k)
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			schema, cfg := pgtest.Schema(t)
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			is.NoErr(err)
			t.Cleanup(pool.Close)
			_, err = postgres.Migrate(ctx, pool)
			is.NoErr(err)
			store, err := postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
			is.NoErr(err)
			t.Cleanup(store.Close)

			var runs atomic.Int32
			newHost := func(m chat.Client) *agent.Host {
				return host(m, agent.Config{Store: store, LeaseTTL: crashLease}, echo("search"), closer(&runs))
			}
			// The first run leaves close_ticket waiting for approval.
			res, err := newHost(script(call(tc("c1", "close_ticket", `{"number":4711}`)))).Run(ctx,
				agent.Text("close 4711"), agent.SettingsID(tenant), agent.Conversation("crash"))
			is.NoErr(err)
			is.Equal(len(res.Pending), 1)

			// The second run, approved, in a process of its own.
			cmd := exec.Command(os.Args[0], "-test.run=^TestConversationCrash$", "-test.count=1")
			cmd.Env = append(os.Environ(), envCrashChild+"=1", envCrashSchema+"="+schema, envCrashAnswer+"="+res.Pending[0].ID)
			stdin, err := cmd.StdinPipe()
			is.NoErr(err)
			stdout, err := cmd.StdoutPipe()
			is.NoErr(err)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			is.NoErr(cmd.Start())
			var reached, said []string // the steps, and the rest the child wrote: its test's output
			out := bufio.NewScanner(stdout)
			killed := false
			for out.Scan() {
				line := out.Text()
				s, ok := strings.CutPrefix(line, "step ")
				if !ok {
					said = append(said, line)
					continue
				}
				reached = append(reached, s)
				if len(reached)-1 == k {
					is.NoErr(cmd.Process.Signal(syscall.SIGKILL))
					killed = true
					break
				}
				fmt.Fprintln(stdin, "go")
			}
			err = cmd.Wait()
			if !killed && err != nil {
				t.Fatalf("child: %v\n%s%s", err, strings.Join(said, "\n"), stderr.String())
			}
			is.Equal(len(reached), min(k+1, len(crashSteps)))
			before, err := store.LoadAll(ctx, tenant, "crash")
			is.NoErr(err)

			// The next run, after the dead process's lease expires. Auto mode would run an open request at once.
			next := script(say("recovered"))
			deadline := time.Now().Add(5 * time.Second)
			for {
				_, err = newHost(next).Run(ctx, agent.Text("status?"), agent.SettingsID(tenant), agent.Conversation("crash"), agent.Mode(agent.ModeAuto))
				if !errors.Is(err, storage.ErrConversationBusy) || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			is.NoErr(err)
			is.Equal(runs.Load(), int32(0)) // close_ticket ran in the child, or never: not here
			seen := next.Requests()[0].Messages
			checkHistory(t, seen)
			// Every stored step reaches the model: each stored result, and the stored responses' text.
			got := results(seen)
			for _, e := range before {
				if e.Type != storage.EntryToolResults && e.Type != storage.EntryResponse {
					continue
				}
				msgs, err := chat.UnmarshalMessages(e.Data)
				is.NoErr(err)
				for id := range results(msgs) {
					if _, ok := got[id]; !ok {
						t.Fatalf("stored result of %s is not in the next run's history", id)
					}
				}
			}
			if len(reached) > 0 { // close_ticket started: its call is answered, never open again
				r, ok := got["c1"]
				is.True(ok)
				is.True(r.Error == "" || strings.Contains(r.Error, "may or may not have taken effect"))
			}
		})
	}
}

// TestConversationForeignRows writes rows behind the store's back, as a newer version or another program might:
// a run on the conversation fails with an error naming the conversation and the entry, and never panics.
func TestConversationForeignRows(t *testing.T) {
	ctx := context.Background()
	_, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	store, err := postgres.New(ctx, pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	tests := []struct {
		name, typ, data string
		version         int
	}{
		{"unknown entry type", "from_the_future", `{}`, storage.EntrySchemaVersion},
		{"schema version from the future", "response", `[]`, storage.EntrySchemaVersion + 1},
		{"data of another shape", "input", `"just a string"`, storage.EntrySchemaVersion},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			id := fmt.Sprintf("foreign-%d", i)
			_, err := host(script(say("first")), agent.Config{Store: store}).Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation(id))
			is.NoErr(err)
			tx, err := pool.Begin(ctx)
			is.NoErr(err)
			_, err = tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', $1, true)`, tenant)
			is.NoErr(err)
			_, err = tx.Exec(ctx, `UPDATE conversation_entries SET type = $3, schema_version = $4, data = $5::jsonb
				WHERE settings_id = $1 AND conversation_id = $2 AND seq = 3`, tenant, id, tt.typ, tt.version, tt.data)
			is.NoErr(err)
			is.NoErr(tx.Commit(ctx))

			m := script(say("never"))
			_, err = host(m, agent.Config{Store: store}).Run(ctx, agent.Text("again"), agent.SettingsID(tenant), agent.Conversation(id))
			var ce *storage.CorruptEntryError
			is.True(errors.As(err, &ce))
			is.Equal(ce.ConversationID, id)
			is.Equal(ce.Seq, int64(3))
			is.True(strings.Contains(err.Error(), "corrupt entry 3"))
			is.Equal(len(m.Requests()), 0)
		})
	}
}
