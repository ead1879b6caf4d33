package background_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// envHandOffSchema makes TestHandOffProcess the worker of TestKillAfterHandOff, on this schema.
const envHandOffSchema = "TYPESHIFT_BACKGROUND_HANDOFF_SCHEMA"

// killJob is the job of TestKillAfterHandOff.
func killJob() background.Job {
	return background.Job{ID: "bg_killed", SettingsID: tenant, Agent: "Billing", Task: "Is invoice 9 paid?"}
}

// openKillStore opens a store on schema, with a short lease, for both processes of TestKillAfterHandOff.
func openKillStore(t *testing.T, schema string) *postgres.Store {
	t.Helper()
	pool, err := pgxpool.NewWithConfig(context.Background(), pgtest.Config(t, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.Direct(t, schema)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestHandOffProcess is the worker process of TestKillAfterHandOff: it runs the job with a model that says when
// it is called, with the task handed over and stored, and then never answers.
func TestHandOffProcess(t *testing.T) {
	schema := os.Getenv(envHandOffSchema)
	if schema == "" {
		t.Skip("run by TestKillAfterHandOff as its worker process")
	}
	store := openKillStore(t, schema)
	model := chattest.FuncModel(func(ctx context.Context, _ []chat.Message, _ *chat.Options) (*chat.Response, error) {
		os.Stdout.WriteString("handed\n")
		<-ctx.Done()
		return nil, ctx.Err()
	})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: model, Store: store, LeaseTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := background.New(background.NewLocalQueue(store, ""), background.Options{})
	m.Register(billing)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = m.Run(ctx, killJob())
}

// TestKillAfterHandOff kills the process running a background job with SIGKILL after the job handed its task to
// the sub-agent's conversation and before its completion was recorded, then runs the job again, as the queue
// retries it: the sub-agent's conversation holds the task once, and the retry answers.
func TestKillAfterHandOff(t *testing.T) {
	is := is.New(t)
	schema, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	is.NoErr(err)
	t.Cleanup(pool.Close)
	_, err = postgres.Migrate(t.Context(), pool)
	is.NoErr(err)

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHandOffProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHandOffSchema+"="+schema)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	handed := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "handed" {
				close(handed)
				return
			}
		}
	}()
	select {
	case <-handed:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker process did not hand the task over")
	}
	is.NoErr(cmd.Process.Kill()) // no deferred call, no release of the claim, no outcome recorded
	_ = cmd.Wait()

	store := openKillStore(t, schema)
	job := killJob()
	is.Equal(tasksIn(t, store, job), 1) // handed over by the killed process

	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text("invoice 9 is paid"), nil
	})
	billing, err := agent.NewHost(&Billing{}, agent.Config{Client: model, Store: store, LeaseTTL: time.Second})
	is.NoErr(err)
	m := background.New(background.NewLocalQueue(store, ""), background.Options{})
	m.Register(billing)
	var res background.Outcome
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The killed process's claim lasts until its lease expires: the retry finds the conversation busy until then.
		res, err = m.Run(t.Context(), job)
		is.NoErr(err)
		if res.Status != background.StatusFailed || !strings.Contains(res.Error, "busy") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	is.Equal(res.Status, background.StatusSucceeded)
	is.Equal(res.Result, "invoice 9 is paid")
	is.Equal(tasksIn(t, store, job), 1) // the task once
}
