package riverqueue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/toolset"
)

// envFailoverScript names .ci/failover.sh, which makes a primary with a synchronous streaming standby and
// promotes the standby; TestFailover runs only with it.
const envFailoverScript = "TYPESHIFT_TEST_FAILOVER_SCRIPT"

// Support is the agent of the failover test's conversations (Billing, of manager_test.go, its background one).
type Support struct{ agent.Agent }

func (a *Support) Declare() { a.WithName("Support"); a.WithInstructions("You close tickets.") }

// TestFailover runs streamed runs, approvals, steering, a watcher and a background job against a primary with a
// synchronous standby, stops the primary with -m immediate and promotes the standby, and checks after recovery:
// no accepted input lost, no tool execution doubled, no conversation stuck, the watcher resumed, the background
// job finished once. It reports the time from the promotion to the first successful run.
func TestFailover(t *testing.T) {
	script := os.Getenv(envFailoverScript)
	if script == "" {
		const how = envFailoverScript + " is not set; to run the failover test: export " + envFailoverScript + "=$PWD/.ci/failover.sh (as root)"
		if os.Getenv("CI") == "true" {
			t.Fatal(how)
		}
		t.Skip(how)
	}
	out, err := exec.Command("bash", script, "start").Output()
	if err != nil {
		t.Fatalf("starting the clusters: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("bash", script, "stop").Run() })
	m := regexp.MustCompile(`TYPESHIFT_TEST_FAILOVER_URL='([^']+)'`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no URL in %q", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, _, err := riverqueue.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	store, err := postgres.New(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)

	// The support agent: "close X" calls close, which needs approval; anything else is answered.
	var execs sync.Map // call id → *atomic.Int32
	closeTool := &toolset.Tool{Name: "close", ID: "test.close", Description: "Closes a ticket.", RequiresApproval: true,
		Schema: json.RawMessage(`{"type":"object"}`), State: &toolset.State{},
		Invoke: func(_ context.Context, c *toolset.Call) (json.RawMessage, error) {
			n, _ := execs.LoadOrStore(c.ID, &atomic.Int32{})
			n.(*atomic.Int32).Add(1)
			return json.RawMessage(`"closed"`), nil
		}}
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		last := msgs[len(msgs)-1]
		if last.Role == chat.RoleUser {
			if ticket, ok := strings.CutPrefix(last.Text(), "close "); ok {
				return chattest.Calls(chattest.Call("call-"+ticket, "close", `{}`)), nil
			}
			return chattest.Text("ok: " + last.Text()), nil
		}
		return chattest.Text("done"), nil
	})
	h, err := agent.NewHost(&Support{}, agent.Config{Client: model, Store: store, LeaseTTL: 2 * time.Second,
		Tools: []toolset.Source{toolset.List{closeTool}}})
	if err != nil {
		t.Fatal(err)
	}
	promoted := make(chan struct{})
	billingModel := chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
		select { // the job runs across the failover
		case <-promoted:
			time.Sleep(time.Second)
			return chattest.Text("invoice checked"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: billingModel, Store: store, LeaseTTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions("failover")
	q, err := riverqueue.New(pool, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	mgr := background.New(q, background.Options{})
	mgr.Register(billing)
	stopWork := work(t, q, mgr.Run)
	defer stopWork()

	const tenant = "tenant-f"
	run := func(conv string, o ...agent.RunOption) (*agent.Result, error) {
		res := &agent.Result{}
		var err error
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		for _, e := range h.RunStream(rctx, append([]agent.RunOption{agent.SettingsID(tenant), agent.Conversation(conv), agent.ResultInto(res)}, o...)...) {
			if e != nil {
				err = e
			}
		}
		return res, err
	}
	if _, err := run("caller", agent.Text("start")); err != nil {
		t.Fatal(err)
	}
	job := background.Job{ID: "bg_failover", SettingsID: tenant, Agent: "Billing", Task: "Check invoice 1.",
		Caller: background.Caller{Agent: "Support", ConversationID: "caller", CallID: "call-bg"}}
	if err := q.Enqueue(ctx, job, 0); err != nil {
		t.Fatal(err)
	}

	// A watcher of c-0 on another instance (a store over a pool of its own), so that what it sees comes through
	// the database and the LISTEN connection, counting the updates it sees after the promotion.
	pool2, err := pgxpool.NewWithConfig(ctx, cfg.Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool2.Close)
	store2, err := postgres.New(ctx, pool2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store2.Close)
	watcher, err := agent.NewHost(&Support{}, agent.Config{Client: model, Store: store2, Tools: []toolset.Source{toolset.List{closeTool}}})
	if err != nil {
		t.Fatal(err)
	}
	var promotedAt atomic.Int64
	var watchedAfter atomic.Int32
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() {
		for wctx.Err() == nil {
			for _, err := range watcher.Watch(wctx, tenant, "c-0") {
				if err == nil && promotedAt.Load() != 0 {
					watchedAfter.Add(1)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	// The load: a worker per conversation, runs with input, every fourth a close that needs approval, answered;
	// steering into the conversations while their runs go.
	const convs = 6
	var (
		mu         sync.Mutex
		accepted   = map[string][]string{} // conversation → inputs and steering a call accepted
		failures   atomic.Int32
		firstOK    atomic.Int64 // nanoseconds from the promotion to the first run that succeeded after it
		stopLoad   = make(chan struct{})
		wg         sync.WaitGroup
		accept     = func(conv, text string) { mu.Lock(); accepted[conv] = append(accepted[conv], text); mu.Unlock() }
		afterPromo = func() {
			if p := promotedAt.Load(); p != 0 {
				firstOK.CompareAndSwap(0, time.Now().UnixNano()-p)
			}
		}
	)
	for i := range convs {
		conv := fmt.Sprintf("c-%d", i)
		wg.Go(func() {
			for j := 0; ; j++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				text := fmt.Sprintf("msg %s %d", conv, j)
				if j%4 == 3 {
					text = fmt.Sprintf("close %s-%d", conv, j)
				}
				res, err := run(conv, agent.Text(text))
				if err != nil {
					failures.Add(1)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				accept(conv, text)
				afterPromo()
				for _, p := range res.Pending {
					if _, err := run(conv, agent.Approve(p.ID)); err != nil {
						failures.Add(1)
					}
				}
			}
		})
	}
	wg.Go(func() {
		for j := 0; ; j++ {
			select {
			case <-stopLoad:
				return
			case <-time.After(30 * time.Millisecond):
			}
			conv := fmt.Sprintf("c-%d", j%convs)
			text := fmt.Sprintf("steer %s %d", conv, j)
			if h.Steer(ctx, tenant, conv, chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}}) == nil {
				accept(conv, text)
			}
		}
	})

	time.Sleep(3 * time.Second)
	if out, err := exec.Command("bash", script, "promote").CombinedOutput(); err != nil {
		t.Fatalf("promoting the standby: %v\n%s", err, out)
	}
	promotedAt.Store(time.Now().UnixNano())
	close(promoted)
	time.Sleep(8 * time.Second)
	close(stopLoad)
	wg.Wait()

	// Stuck: every conversation takes a run again, within its lease.
	stuck := 0
	for i := range convs {
		conv := fmt.Sprintf("c-%d", i)
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := run(conv, agent.Text("final"))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("conversation %s stuck: %v", conv, err)
				stuck++
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// Lost: every input and steering input a call accepted is in its conversation.
	lost, total := 0, 0
	for conv, texts := range accepted {
		entries, err := store.LoadAll(ctx, tenant, conv)
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, e := range entries {
			all.Write(e.Data)
		}
		for _, text := range texts {
			total++
			if !strings.Contains(all.String(), `"`+text+`"`) {
				t.Errorf("accepted input %q is not in %s", text, conv)
				lost++
			}
		}
	}
	doubled, executed := 0, 0
	execs.Range(func(k, v any) bool {
		executed++
		if n := v.(*atomic.Int32).Load(); n > 1 {
			t.Errorf("tool call %v ran %d times", k, n)
			doubled++
		}
		return true
	})
	st := waitState(t, q, tenant, job.ID, background.StatusSucceeded, 60*time.Second)
	entries, err := store.Load(ctx, tenant, "caller")
	if err != nil {
		t.Fatal(err)
	}
	reports := len(reportsIn(t, entries, job.ID))
	if reports != 1 {
		t.Errorf("the background job reported %d times, want once", reports)
	}
	if watchedAfter.Load() == 0 {
		t.Error("the watcher saw nothing after the promotion")
	}
	if firstOK.Load() == 0 {
		t.Error("no run succeeded after the promotion")
	}
	t.Logf("accepted inputs %d, lost %d; tool executions %d, doubled %d; conversations stuck %d; calls failed during the failover %d; "+
		"watcher updates after the promotion %d; background job %s after %d attempts, reported %d; "+
		"promotion to the first successful run %v",
		total, lost, executed, doubled, stuck, failures.Load(), watchedAfter.Load(), st.Status, st.Attempts, reports,
		time.Duration(firstOK.Load()).Round(time.Millisecond))
}
