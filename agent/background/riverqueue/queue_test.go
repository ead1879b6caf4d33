package riverqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// TestAnswerReachesCaller: a caller whose run ended before the answer came finds it stored in its conversation;
// a caller whose run is live is told and takes it in; two sub-agents answering at once both arrive, once each.
func TestAnswerReachesCaller(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	q := e.queue(t, "a")

	// Ended caller.
	is.NoErr(q.Enqueue(ctx, newJob("ended", "task one"), 0))
	// The enqueue stored the sub-agent's conversation with the job.
	var convs int
	is.NoErr(e.store.TenantTx(ctx, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM conversations WHERE conversation_id = 'ended'`).Scan(&convs)
	}))
	is.Equal(convs, 1)
	agent := &subAgent{store: e.store, owner: "a"}
	work(t, q, agent.run)
	st := waitState(t, q, tenant, "ended", background.StatusSucceeded, 20*time.Second)
	is.Equal(st.Result, "answer to task one")
	is.Equal(len(e.reports(t, tenant, "caller", "ended")), 1)

	// Live caller, and two sub-agents answering at once.
	claim, err := e.store.Claim(ctx, tenant, "caller", "caller", time.Minute)
	is.NoErr(err)
	signal, err := e.store.WatchSteering(ctx, tenant, "caller")
	is.NoErr(err)
	is.NoErr(q.Enqueue(ctx, newJob("live-1", "task two"), 0))
	is.NoErr(q.Enqueue(ctx, newJob("live-2", "task three"), 0))
	waitState(t, q, tenant, "live-1", background.StatusSucceeded, 20*time.Second)
	waitState(t, q, tenant, "live-2", background.StatusSucceeded, 20*time.Second)
	select {
	case <-signal:
	case <-time.After(10 * time.Second):
		t.Fatal("the live run was not told of the answers")
	}
	taken, err := e.store.TakeSteering(ctx, claim, storage.Entry{RunID: "r"})
	is.NoErr(err)
	is.Equal(len(reportsIn(t, taken, "live-1")), 1)
	is.Equal(len(reportsIn(t, taken, "live-2")), 1)
	is.NoErr(e.store.Release(ctx, claim))
	for _, id := range []string{"ended", "live-1", "live-2"} {
		is.Equal(len(e.reports(t, tenant, "caller", id)), 1) // once each, whichever way it came
		is.Equal(e.completions(t, id), 1)
	}
}

// TestRetried: an attempt that fails is tried again after the backoff; the outcome is reported once.
func TestRetried(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	e.caller(t, tenant, "caller")
	q := e.queue(t, "a")
	var calls atomic.Int32
	work(t, q, func(ctx context.Context, job background.Job) (background.Outcome, error) {
		if calls.Add(1) < 3 {
			return background.Outcome{}, errors.New("the model is down")
		}
		return background.Ended(job, background.StatusSucceeded, "done"), nil
	})
	is.NoErr(q.Enqueue(t.Context(), newJob("r", "task"), 0))
	st := waitState(t, q, tenant, "r", background.StatusSucceeded, 20*time.Second)
	is.Equal(st.Attempts, 3)
	is.Equal(len(e.reports(t, tenant, "caller", "r")), 1)

	// Attempts that all fail end the job as failed, reported with the reason.
	opts := testOptions("c")
	opts.Direct = e.direct
	opts.MaxAttempts = 2
	opts.Queue = "failing" // not the first queue's workers
	q3, err := riverqueue.New(e.pool, e.store, opts)
	is.NoErr(err)
	work(t, q3, func(context.Context, background.Job) (background.Outcome, error) {
		return background.Outcome{}, errors.New("the model is down")
	})
	j := newJob("f", "task")
	is.NoErr(q3.Enqueue(t.Context(), j, 0))
	st = waitState(t, q3, tenant, "f", background.StatusFailed, 30*time.Second)
	is.True(strings.Contains(st.Error, "the model is down"))
	is.Equal(len(e.reports(t, tenant, "caller", "f")), 1)

	// River's rows hold ids: neither the task nor an attempt's error is in them.
	var leaks, withErrors int
	is.NoErr(e.pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE args::text LIKE '%task%' OR errors::text LIKE '%model is down%'),
		count(*) FILTER (WHERE errors IS NOT NULL) FROM river_job`).Scan(&leaks, &withErrors))
	is.Equal(leaks, 0)
	is.True(withErrors > 0) // the attempts' errors were recorded, without their text
}

// TestApproval: a sub-agent that needs approval waits, its request reaches the caller, and the answers given with
// Resume reach its next run, which answers.
func TestApproval(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	q := e.queue(t, "a")
	agent := &subAgent{store: e.store, owner: "a"}
	stop := work(t, q, agent.run)
	is.NoErr(q.Enqueue(ctx, newJob("ap", "needs approval to close ticket"), 0))
	st := waitState(t, q, tenant, "ap", background.StatusWaiting, 20*time.Second)
	is.Equal(string(st.Pending), `[{"id":"req-1"}]`)
	entries, err := e.store.Load(ctx, tenant, "caller")
	is.NoErr(err)
	is.Equal(len(reportsIn(t, entries, "ap")), 1) // "waits for approval"
	stop()

	is.True(errors.Is(q.Resume(ctx, tenant, "nope", nil), background.ErrNotFound))
	is.True(errors.Is(q.Resume(ctx, "tenant-b", "ap", nil), background.ErrNotFound))
	is.NoErr(q.Resume(ctx, tenant, "ap", json.RawMessage(`[{"RequestID":"req-1","Approved":true}]`)))
	// Answers given before the resumed run starts join the first ones.
	is.NoErr(q.Resume(ctx, tenant, "ap", json.RawMessage(`[{"RequestID":"req-2","Approved":false}]`)))
	work(t, q, agent.run)
	st = waitState(t, q, tenant, "ap", background.StatusSucceeded, 20*time.Second)
	is.True(strings.Contains(st.Result, `"RequestID":"req-1","Approved":true`))
	is.True(strings.Contains(st.Result, `"RequestID":"req-2","Approved":false`))
	is.True(errors.Is(q.Resume(ctx, tenant, "ap", nil), background.ErrNotWaiting))
	is.Equal(len(e.reports(t, tenant, "caller", "ap")), 2) // the wait, then the answer
}

// TestCancel: a queued job ends cancelled at once; a running one has its context cancelled, on the instance that
// runs it, and ends cancelled; both are reported to the caller; cancelling again changes nothing.
func TestCancel(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	opts := testOptions("a")
	opts.Direct = e.direct
	opts.RescueAfter = time.Minute // the running job ends by its cancellation, not by another attempt
	q, err := riverqueue.New(e.pool, e.store, opts)
	is.NoErr(err)

	is.NoErr(q.Enqueue(ctx, newJob("queued", "task"), 0))
	is.NoErr(q.Cancel(ctx, tenant, "queued"))
	st, err := q.State(ctx, tenant, "queued")
	is.NoErr(err)
	is.Equal(st.Status, background.StatusCancelled)
	is.True(errors.Is(q.Cancel(ctx, "tenant-b", "queued"), background.ErrNotFound))

	started := make(chan string, 1)
	hold := make(chan struct{}) // never closed: only the cancellation ends the run
	agent := &subAgent{store: e.store, owner: "a", hold: hold, started: func(id string) { started <- id }}
	work(t, q, agent.run)
	is.NoErr(q.Enqueue(ctx, newJob("running", "task"), 0))
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the job did not start")
	}
	is.NoErr(q.Cancel(ctx, tenant, "running"))
	st = waitState(t, q, tenant, "running", background.StatusCancelled, 10*time.Second)
	is.Equal(st.Error, "the caller cancelled it")
	is.NoErr(q.Cancel(ctx, tenant, "running"))
	is.NoErr(q.Cancel(ctx, tenant, "queued"))
	for _, id := range []string{"queued", "running"} {
		r := e.reports(t, tenant, "caller", id)
		is.Equal(len(r), 1)
		is.True(strings.Contains(r[0], "was cancelled"))
	}
	// The queued job's run finds it ended and changes nothing.
	time.Sleep(500 * time.Millisecond)
	st, err = q.State(ctx, tenant, "queued")
	is.NoErr(err)
	is.Equal(st.Status, background.StatusCancelled)
	is.Equal(st.Attempts, 0)
}

// TestLimit: a tenant at its limit of live jobs gets ErrLimit, concurrently too; another tenant does not; an id
// taken is ErrExists.
func TestLimit(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	q := e.queue(t, "a")
	const limit = 3
	type result struct {
		id  string
		err error
	}
	results := make(chan result, 10)
	for i := range 10 {
		go func() {
			id := "l" + string(rune('0'+i))
			results <- result{id, q.Enqueue(ctx, newJob(id, "task"), limit)}
		}()
	}
	ok, limited := 0, 0
	var stored string
	for range 10 {
		r := <-results
		switch err := r.err; {
		case err == nil:
			ok++
			stored = r.id
		case errors.Is(err, background.ErrLimit):
			limited++
		default:
			t.Fatal(err)
		}
	}
	is.Equal(ok, limit)
	is.Equal(limited, 10-limit)
	other := newJob(stored, "task")
	other.SettingsID = "tenant-b"
	is.NoErr(q.Enqueue(ctx, other, limit)) // the same id in another tenant is another job
	taken := newJob(stored, "task")
	err := q.Enqueue(ctx, taken, 0)
	is.True(errors.Is(err, background.ErrExists))
	// Ids a store refuses: no such job, and no job of that id can be stored.
	_, err = q.State(ctx, tenant, "bad\x00id")
	is.True(errors.Is(err, background.ErrNotFound))
	is.True(errors.Is(q.Cancel(ctx, tenant, ""), background.ErrNotFound))
	is.True(errors.Is(q.Enqueue(ctx, newJob("", "task"), 0), storage.ErrInvalid))
	// A refused job left nothing in River's table: its jobs are stored in the transaction that checks.
	var jobs int
	is.NoErr(e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'typeshift_background_run'`).Scan(&jobs))
	is.Equal(jobs, limit+1)
}

// TestDeadline: a job whose deadline passes while it runs ends timed out; one whose deadline passes while it
// waits for approval is ended by its watch; both are reported.
func TestDeadline(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	q := e.queue(t, "a")
	agent := &subAgent{store: e.store, owner: "a", hold: make(chan struct{})}
	work(t, q, agent.run)
	j := newJob("slow", "task")
	j.Deadline = time.Now().Add(1500 * time.Millisecond)
	is.NoErr(q.Enqueue(ctx, j, 0))
	w := newJob("waits", "needs approval")
	w.Deadline = time.Now().Add(1500 * time.Millisecond)
	is.NoErr(q.Enqueue(ctx, w, 0))
	waitState(t, q, tenant, "slow", background.StatusTimedOut, 20*time.Second)
	waitState(t, q, tenant, "waits", background.StatusTimedOut, 20*time.Second)
	is.True(strings.Contains(e.reports(t, tenant, "caller", "slow")[0], "timed out"))
	r := e.reports(t, tenant, "caller", "waits")
	is.Equal(len(r), 2) // the wait, then the end
	is.True(strings.Contains(r[1], "timed out"))
}

// TestOtherTenantWorker: a worker connected as another tenant's login role (typeshift_other) finds no job of the
// tenant in River's table nor its row in background_runs, even naming itself as the tenant; so its River client
// runs none of them, and the tenant's own worker does.
func TestOtherTenantWorker(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	q := e.queue(t, "a")
	is.NoErr(q.Enqueue(ctx, newJob("secret", "the tenant's secret task"), 0))

	const otherRole = "typeshift_other"
	pgtest.Grant(t, e.pool, e.schema, otherRole)
	otherPool := pgtest.RolePool(t, pgtest.RoleURL(t, otherRole), e.schema, "")
	var n int
	err := pgx.BeginFunc(ctx, otherPool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'tenant-b', true)`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&n); err != nil || n != 0 {
			return errors.Join(err, errors.New("another tenant sees River's jobs"))
		}
		return tx.QueryRow(ctx, `SELECT count(*) FROM background_runs`).Scan(&n)
	})
	is.NoErr(err)
	is.Equal(n, 0)

	otherEnv := openEnv(t, otherPool, e.schema)
	oq, err := riverqueue.New(otherPool, otherEnv.store, testOptions("other"))
	is.NoErr(err)
	var ran atomic.Int32
	stop := work(t, oq, func(ctx context.Context, job background.Job) (background.Outcome, error) {
		ran.Add(1)
		return background.Ended(job, background.StatusSucceeded, "stolen: "+job.Task), nil
	})
	time.Sleep(2 * time.Second) // several of its fetches
	stop()
	is.Equal(ran.Load(), int32(0))
	st, err := q.State(ctx, tenant, "secret")
	is.NoErr(err)
	is.Equal(st.Status, background.StatusQueued)

	agent := &subAgent{store: e.store, owner: "a"}
	work(t, q, agent.run)
	waitState(t, q, tenant, "secret", background.StatusSucceeded, 20*time.Second)
}

// TestCheckTenancy: the migrated schema passes; River's job table without its policy or its row-level security
// does not.
func TestCheckTenancy(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	is.NoErr(riverqueue.CheckTenancy(ctx, e.pool))
	_, err := e.pool.Exec(ctx, `DROP POLICY tenant ON river_job`)
	is.NoErr(err)
	is.True(riverqueue.CheckTenancy(ctx, e.pool) != nil)
	_, _, err = riverqueue.Migrate(ctx, e.pool) // puts it back
	is.NoErr(err)
	is.NoErr(riverqueue.CheckTenancy(ctx, e.pool))
	_, err = e.pool.Exec(ctx, `ALTER TABLE river_job DISABLE ROW LEVEL SECURITY`)
	is.NoErr(err)
	is.True(riverqueue.CheckTenancy(ctx, e.pool) != nil)
}

// TestNonOwnerRole: a service whose store runs as a role that owns nothing (typeshift_tenant, granted the tables)
// enqueues through River's tenant policy, which admits the job for its tenant's id only, and the workers, as the
// owner, run it.
func TestNonOwnerRole(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	ctx := t.Context()
	e.caller(t, tenant, "caller")
	pgtest.Grant(t, e.pool, e.schema, pgtest.TenantRole)
	app := openEnv(t, pgtest.RolePool(t, pgtest.URL(t), e.schema, pgtest.TenantRole), e.schema)
	appQueue, err := riverqueue.New(app.pool, app.store, testOptions("app"))
	is.NoErr(err)
	is.NoErr(appQueue.Enqueue(ctx, newJob("j", "task"), 1))
	// River's policy refuses a job whose arguments name another tenant than the transaction's.
	err = app.store.TenantTx(ctx, tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state)
			VALUES ('{"settings_id":"tenant-b","id":"x"}', 'typeshift_background_run', 1, 'q', 'available')`)
		return err
	})
	is.True(err != nil && strings.Contains(err.Error(), "row-level security"))

	q := e.queue(t, "owner")
	agent := &subAgent{store: e.store, owner: "owner"}
	work(t, q, agent.run)
	waitState(t, appQueue, tenant, "j", background.StatusSucceeded, 20*time.Second)
	is.Equal(len(app.reports(t, tenant, "caller", "j")), 1)
}

// TestMigrateConcurrently: four instances migrating one schema at once apply each of River's migrations once and
// all succeed; a fifth finds nothing to do.
func TestMigrateConcurrently(t *testing.T) {
	is := is.New(t)
	pool, _ := pgtest.Pool(t)
	ctx := t.Context()
	type result struct {
		river []int
		err   error
	}
	results := make(chan result, 4)
	for range 4 {
		go func() {
			_, river, err := riverqueue.Migrate(ctx, pool)
			results <- result{river, err}
		}()
	}
	applied := 0
	for range 4 {
		r := <-results
		is.NoErr(r.err)
		applied += len(r.river)
	}
	var versions int
	is.NoErr(pool.QueryRow(ctx, `SELECT count(*) FROM river_migration`).Scan(&versions))
	is.Equal(applied, versions)
	_, river, err := riverqueue.Migrate(ctx, pool)
	is.NoErr(err)
	is.Equal(len(river), 0)
	is.NoErr(riverqueue.CheckTenancy(ctx, pool))
}
