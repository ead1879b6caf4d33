package riverqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

const tenant = "tenant-a"

// env is a migrated schema of its own with a store over it.
type env struct {
	pool   *pgxpool.Pool
	schema string
	store  *postgres.Store
	direct *pgxpool.Pool // River's client's, behind a pooler (pgtest.DirectPool)
}

func newEnv(t testing.TB) *env {
	t.Helper()
	pool, schema := pgtest.Pool(t)
	if _, _, err := riverqueue.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	return openEnv(t, pool, schema)
}

func openEnv(t testing.TB, pool *pgxpool.Pool, schema string) *env {
	t.Helper()
	store, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	return &env{pool: pool, schema: schema, store: store, direct: pgtest.DirectPool(t, schema)}
}

// testOptions are short intervals, so that a crashed worker's job is rescued within seconds.
func testOptions(id string) *riverqueue.Options {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("TYPESHIFT_RIVERQUEUE_LOG") == "1" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("instance", id)
	}
	return &riverqueue.Options{
		ID: id, Workers: 20, MaxAttempts: 10,
		Backoff:      func(int) time.Duration { return 200 * time.Millisecond },
		RescueAfter:  2 * time.Second,
		WatchEvery:   time.Second,
		PollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		Logger: logger,
	}
}

func (e *env) queue(t testing.TB, id string) *riverqueue.Queue {
	t.Helper()
	opts := testOptions(id)
	opts.Direct = e.direct
	q, err := riverqueue.New(e.pool, e.store, opts)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// work runs q's workers with run until the test ends (or stop is called).
func work(t testing.TB, q *riverqueue.Queue, run background.RunFunc) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- q.Work(ctx, run) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Work: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// caller makes the caller's conversation, as its run leaves it: with entries and no claim.
func (e *env) caller(t testing.TB, settingsID, conversationID string) {
	t.Helper()
	c, err := e.store.Claim(t.Context(), settingsID, conversationID, "caller", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.EndRun(t.Context(), storage.RunEnd{Claim: c, Entries: []storage.Entry{{Type: storage.EntryInput, Data: []byte(`{"text":"start"}`)}}}); err != nil {
		t.Fatal(err)
	}
}

func newJob(id, task string) background.Job {
	return background.Job{ID: id, SettingsID: tenant, Agent: "researcher", Task: task,
		Caller: background.Caller{Agent: "lead", ConversationID: "caller", CallID: "call-" + id}}
}

// reports returns the reports of job id in the stored entries of the caller's conversation.
func (e *env) reports(t testing.TB, settingsID, conversationID, id string) []string {
	t.Helper()
	entries, err := e.store.Load(t.Context(), settingsID, conversationID)
	if err != nil {
		t.Fatal(err)
	}
	return reportsIn(t, entries, id)
}

func reportsIn(t testing.TB, entries []storage.Entry, id string) []string {
	t.Helper()
	var out []string
	for _, en := range entries {
		if en.Type != storage.EntrySteering {
			continue
		}
		msgs, err := chat.UnmarshalMessages(en.Data)
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

// waitState polls the job's state until it has status or the time is up.
func waitState(t testing.TB, q background.Queue, settingsID, id string, status background.Status, within time.Duration) background.State {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := q.State(t.Context(), settingsID, id)
		if err != nil && !errors.Is(err, background.ErrNotFound) {
			t.Fatal(err)
		}
		if err == nil && st.Status == status {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: status %q after %v, want %q (%+v)", id, st.Status, within, status, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// subAgent is the tests' sub-agent. As a host's run does, it works on its own conversation under a claim and
// stores its answer there, so that an attempt after a crash finds the answer and does not answer again; the
// answers stored count its completions. hold, when set, is waited for before answering; started is told of
// each run that starts.
type subAgent struct {
	store   *postgres.Store
	owner   string
	hold    <-chan struct{}
	started func(id string)
	delay   time.Duration // the work before the answer
}

func (a *subAgent) run(ctx context.Context, job background.Job) (background.Outcome, error) {
	var c storage.RunBegun
	for {
		var err error
		c, err = a.store.BeginRun(ctx, storage.RunBegin{SettingsID: job.SettingsID, ConversationID: job.ID, Owner: a.owner, TTL: 2 * time.Second})
		if err == nil {
			break
		}
		// A crashed worker's claim holds until its lease ends.
		if !errors.Is(err, storage.ErrConversationBusy) {
			return background.Outcome{}, err
		}
		select {
		case <-ctx.Done():
			return background.Outcome{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer func() { _ = a.store.Release(context.WithoutCancel(ctx), c.Claim) }()
	for _, en := range c.Entries {
		if en.Type == storage.EntryResponse {
			var text string
			_ = json.Unmarshal(en.Data, &text)
			return background.Ended(job, background.StatusSucceeded, text), nil
		}
	}
	if a.started != nil {
		a.started(job.ID)
	}
	if strings.HasPrefix(job.Task, "needs approval") && len(job.Answers) == 0 {
		report, _ := chat.MarshalMessages([]chat.Message{chat.UserText("[background run " + job.ID + " waits for approval]")})
		return background.Outcome{Status: background.StatusWaiting, Pending: json.RawMessage(`[{"id":"req-1"}]`), Report: report}, nil
	}
	if a.delay > 0 {
		select {
		case <-time.After(a.delay/2 + rand.N(a.delay)):
		case <-ctx.Done():
			return background.Outcome{}, ctx.Err()
		}
	}
	if a.hold != nil {
		select {
		case <-a.hold:
		case <-ctx.Done():
			return background.Outcome{}, ctx.Err()
		}
	}
	answer := "answer to " + job.Task
	if len(job.Answers) > 0 {
		answer += " with " + string(job.Answers)
	}
	data, _ := json.Marshal(answer)
	task, _ := json.Marshal(job.Task)
	if _, err := a.store.Append(ctx, c.Claim, storage.Entry{Type: storage.EntryInput, Data: task},
		storage.Entry{Type: storage.EntryResponse, Data: data}); err != nil {
		return background.Outcome{}, err
	}
	return background.Ended(job, background.StatusSucceeded, answer), nil
}

// completions counts the answers stored in the sub-agent's conversation.
func (e *env) completions(t testing.TB, id string) int {
	t.Helper()
	entries, err := e.store.Load(t.Context(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range entries {
		if en.Type == storage.EntryResponse {
			n++
		}
	}
	return n
}
