package riverqueue_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// The variables that make TestWorkerProcess a worker instance of another test.
const (
	envWorkerSchema = "TYPESHIFT_RIVERQUEUE_WORKER_SCHEMA" // the schema to work on
	envWorkerID     = "TYPESHIFT_RIVERQUEUE_WORKER_ID"     // the instance's River client id
	envWorkerHold   = "TYPESHIFT_RIVERQUEUE_WORKER_HOLD"   // "1": runs never answer
	envWorkerDelay  = "TYPESHIFT_RIVERQUEUE_WORKER_DELAY"  // the sub-agent's work before it answers
)

// startedLine prefixes the lines the worker process writes when a run starts.
const startedLine = "started "

// worker is a worker instance in another OS process.
type worker struct {
	cmd     *exec.Cmd
	started chan string // the ids of the runs it started
}

// startWorker re-executes the test binary as a worker instance on e's schema.
func startWorker(t *testing.T, e *env, id string, hold bool, delay time.Duration) *worker {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestWorkerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWorkerSchema+"="+e.schema, envWorkerID+"="+id, envWorkerDelay+"="+delay.String())
	if hold {
		cmd.Env = append(cmd.Env, envWorkerHold+"=1")
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, started: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), startedLine); ok {
				w.started <- id
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return w
}

// kill ends the worker process with SIGKILL: no deferred call, no River shutdown, no release of any claim.
func (w *worker) kill(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = w.cmd.Wait()
}

// waitLeader waits until River's leader is the client id, so that the instance killed is the one whose
// maintenance (the rescue of stuck jobs) must pass to another.
func waitLeader(t *testing.T, e *env, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var leader string
		err := e.pool.QueryRow(t.Context(), `SELECT leader_id FROM river_leader`).Scan(&leader)
		if err == nil && leader == id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("River's leader is %q (%v), want %q", leader, err, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWorkerProcess is the worker instance of TestKillWorker and TestStress; without its variables it does
// nothing.
func TestWorkerProcess(t *testing.T) {
	schema := os.Getenv(envWorkerSchema)
	if schema == "" {
		t.Skip("run by TestKillWorker and TestStress as their second process")
	}
	cfg := pgtest.Config(t, schema)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e := openEnv(t, pool, schema)
	id := os.Getenv(envWorkerID)
	q := e.queue(t, id)
	delay, _ := time.ParseDuration(os.Getenv(envWorkerDelay))
	var mu sync.Mutex
	agent := &subAgent{store: e.store, owner: id, delay: delay, started: func(job string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf("%s%s\n", startedLine, job)
	}}
	if os.Getenv(envWorkerHold) == "1" {
		agent.hold = make(chan struct{})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := q.Work(ctx, agent.run); err != nil {
		t.Fatal(err)
	}
}

// TestKillWorker: the instance running a background sub-agent is killed with SIGKILL in the middle of its run;
// another instance takes the job over once River's rescue finds it stuck, finishes it exactly once, and the
// answer reaches the caller once.
func TestKillWorker(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	q := e.queue(t, "survivor")
	is.NoErr(q.Enqueue(ctx, newJob("k", "task"), 0))

	w := startWorker(t, e, "doomed", true, 0)
	select {
	case id := <-w.started:
		is.Equal(id, "k")
	case <-time.After(30 * time.Second):
		t.Fatal("the worker process did not start the job")
	}
	waitLeader(t, e, "doomed")
	w.kill(t)
	st, err := q.State(ctx, tenant, "k")
	is.NoErr(err)
	is.Equal(st.Status, background.StatusRunning) // as the killed instance left it

	agent := &subAgent{store: e.store, owner: "survivor"}
	work(t, q, agent.run)
	st = waitState(t, q, tenant, "k", background.StatusSucceeded, 60*time.Second)
	is.Equal(st.Attempts, 2)
	is.Equal(len(e.reports(t, tenant, "caller", "k")), 1)
	is.Equal(e.completions(t, "k"), 1)
}

// TestStress: 200 background sub-agents of four tenants on two instances in two OS processes, the one that is
// River's leader killed with SIGKILL when half of them have ended: every sub-agent ends succeeded, its answer is
// in its caller's conversation once, and none answered twice.
func TestStress(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	tenants := []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d"}
	for _, s := range tenants {
		e.caller(t, s, "caller")
	}
	const n = 200
	q := e.queue(t, "survivor")
	w := startWorker(t, e, "doomed", false, 400*time.Millisecond)
	waitLeader(t, e, "doomed")
	agent := &subAgent{store: e.store, owner: "survivor", delay: 400 * time.Millisecond}
	work(t, q, agent.run)

	jobs := make([]background.Job, n)
	for i := range jobs {
		j := newJob(fmt.Sprintf("s%03d", i), fmt.Sprintf("task %d", i))
		j.SettingsID = tenants[i%len(tenants)]
		jobs[i] = j
		is.NoErr(q.Enqueue(ctx, j, 0))
	}
	ended := func() int {
		total := 0
		for _, s := range tenants {
			var k int
			err := e.store.TenantTx(ctx, s, func(tx pgx.Tx) error {
				return tx.QueryRow(ctx, `SELECT count(*) FROM background_runs WHERE status = 'succeeded'`).Scan(&k)
			})
			is.NoErr(err)
			total += k
		}
		return total
	}
	for ended() < n/2 {
		time.Sleep(20 * time.Millisecond)
	}
	w.kill(t)
	var inChild []string
	for len(w.started) > 0 {
		inChild = append(inChild, <-w.started)
	}
	deadline := time.Now().Add(90 * time.Second)
	for ended() < n && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	rescued := 0
	for _, j := range jobs {
		st, err := q.State(ctx, j.SettingsID, j.ID)
		is.NoErr(err)
		if st.Status != background.StatusSucceeded {
			t.Fatalf("job %s: %+v", j.ID, st)
		}
		if st.Attempts > 1 {
			rescued++
		}
		entries, err := e.store.Load(ctx, j.SettingsID, "caller")
		is.NoErr(err)
		if r := reportsIn(t, entries, j.ID); len(r) != 1 {
			t.Errorf("job %s: %d reports in the caller's conversation, want 1", j.ID, len(r))
		}
		entries, err = e.store.Load(ctx, j.SettingsID, j.ID)
		is.NoErr(err)
		answers := 0
		for _, en := range entries {
			if en.Type == "response" {
				answers++
			}
		}
		if answers != 1 {
			t.Errorf("job %s: answered %d times, want once", j.ID, answers)
		}
	}
	t.Logf("%d jobs started in the killed process, %d rescued by the survivor", len(inChild), rescued)
	is.True(len(inChild) > 0)
	is.True(rescued > 0) // the kill interrupted runs, which the survivor finished
}
