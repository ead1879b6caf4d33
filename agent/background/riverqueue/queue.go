package riverqueue

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// Options configures a Queue; zero fields mean the defaults.
type Options struct {
	// Queue is the River queue the jobs go to; "" means "typeshift_background".
	Queue string
	// Workers is how many jobs one instance runs at once; 0 means 10.
	Workers int
	// MaxAttempts is how many times a job is started before it fails for
	// good (a crashed worker's attempt counts); 0 means 5.
	MaxAttempts int
	// Backoff is the wait before the attempt after attempt (1 for the
	// first); nil means River's default (about attempt⁴ seconds).
	Backoff func(attempt int) time.Duration
	// RescueAfter bounds one attempt, and is how long a job may run before
	// River takes its worker for crashed and starts it again on any
	// instance; 0 means an hour. An attempt still running then has its
	// context ended and counts as failed (River rescues only jobs with a
	// timeout); were it still going, only the first of its end and the next
	// attempt's is recorded and reported. A job's own deadline
	// (Job.Deadline) is separate, and reported as timed out.
	RescueAfter time.Duration
	// WatchEvery is how often a live job's watch looks for a deadline that
	// passed or a job whose worker is gone with no attempt left (it reports
	// them); 0 means RescueAfter.
	WatchEvery time.Duration
	// PollInterval is how often a worker looks for jobs when no
	// notification told it of one; 0 means a second.
	PollInterval time.Duration
	// FetchCooldown is the least time between two fetches of a worker, the
	// wait of a job enqueued just after a fetch; 0 means River's default,
	// 100ms (at most PollInterval).
	FetchCooldown time.Duration
	// ID names this instance among River's clients; "" lets River choose.
	ID string
	// Logger receives River's logs; nil means River's default (warnings to
	// stdout).
	Logger *slog.Logger
	// Direct is a pool of direct connections to the same database and
	// schema for the River client of Work: its LISTEN for new jobs and
	// cancellations, its leader election and its fetches and completions,
	// which hold a session. nil means the pool given to New, which New
	// refuses when the store found it behind a pooler in transaction mode
	// (see [postgres.Options.Direct]); Work refuses it then too. Jobs are
	// still enqueued, and their rows written, through the pool given to New.
	Direct *pgxpool.Pool
}

// Queue is a [background.Queue] whose jobs are River jobs in Postgres, beside
// the store's tables. Its methods are safe for concurrent use.
type Queue struct {
	store    *postgres.Store
	pool     *pgxpool.Pool
	opts     Options
	inserter *river.Client[pgx.Tx]
}

var _ background.Queue = (*Queue)(nil)

// New returns a queue whose River client works on pool (or on
// [Options.Direct]) and whose rows go through store. pool's role must own River's tables (or bypass row-level
// security), as the role that ran [Migrate] does, so that its workers see
// every tenant's jobs; store's tenant rules bind the role in any case, so
// store may be over the same pool. The schema must have been migrated with
// [Migrate].
func New(pool *pgxpool.Pool, store *postgres.Store, opts *Options) (*Queue, error) {
	if pool == nil || store == nil {
		return nil, errors.New("riverqueue: New: nil pool or store")
	}
	q := &Queue{pool: pool, store: store}
	if opts != nil {
		q.opts = *opts
	}
	if q.opts.Direct == nil && store.Pooled() {
		return nil, &postgres.ConfigError{Setting: "riverqueue.Options.Direct",
			Problem: "the store's pool reaches Postgres through a pooler, which cannot hold River's LISTEN and leader election",
			Fix:     "set it to a pool of direct connections to the same database (TYPESHIFT_DATABASE_DIRECT_URL in the examples)"}
	}
	q.opts.Queue = cmp.Or(q.opts.Queue, "typeshift_background")
	q.opts.Workers = cmp.Or(q.opts.Workers, 10)
	q.opts.MaxAttempts = cmp.Or(q.opts.MaxAttempts, 5)
	q.opts.RescueAfter = cmp.Or(q.opts.RescueAfter, time.Hour)
	q.opts.WatchEvery = cmp.Or(q.opts.WatchEvery, q.opts.RescueAfter)
	q.opts.PollInterval = cmp.Or(q.opts.PollInterval, time.Second)
	q.opts.FetchCooldown = min(cmp.Or(q.opts.FetchCooldown, 100*time.Millisecond), q.opts.PollInterval)
	// The inserting client sends River's insert notification at most once per
	// FetchCooldown; at the least cooldown every enqueue wakes the workers
	// rather than leave the job to their next poll.
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: q.opts.Logger, FetchCooldown: river.FetchCooldownMin})
	if err != nil {
		return nil, fmt.Errorf("riverqueue: %w", err)
	}
	q.inserter = c
	return q, nil
}

// runArgs are the arguments of the River job that runs a background job
// once: ids and nothing else, so that what River's tables hold says nothing
// of the tenant's work. settings_id is what the tenant policy of river_job
// reads.
type runArgs struct {
	SettingsID string `json:"settings_id"`
	ID         string `json:"id"`
	Generation int    `json:"generation"`
}

// Kind implements river.JobArgs.
func (runArgs) Kind() string { return "typeshift_background_run" }

// watchArgs are the arguments of the River job that watches a background
// job through its life: it ends it when its deadline passes while no worker
// runs it, and when its run jobs are gone without an end recorded.
type watchArgs struct {
	SettingsID string `json:"settings_id"`
	ID         string `json:"id"`
}

// Kind implements river.JobArgs.
func (watchArgs) Kind() string { return "typeshift_background_watch" }

// liveStates are River's states of a job that may still run.
var liveStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// unique keeps one live River job per background job and generation (run)
// or per background job (watch). A finished River job does not count, so
// that the generation after a wait for approval gets a run of its own.
var unique = river.UniqueOpts{ByArgs: true, ByState: liveStates}

func (q *Queue) runOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: q.opts.Queue, MaxAttempts: q.opts.MaxAttempts, UniqueOpts: unique}
}

func (q *Queue) watchOpts(deadline time.Time) *river.InsertOpts {
	at := time.Now().Add(q.opts.WatchEvery)
	if !deadline.IsZero() && deadline.Before(at) {
		at = deadline
	}
	// A watch that snoozes counts an attempt each time; it must not run out.
	return &river.InsertOpts{Queue: q.opts.Queue, MaxAttempts: 1 << 20, ScheduledAt: at, UniqueOpts: unique}
}

// qEnqueue stores a job unless the tenant is at its limit ($5 > 0) or the id
// is taken, and with it the sub-agent's conversation (a row with no entries
// yet, as a claim leaves it), in one statement. It returns the tenant's live
// jobs before it and whether it stored the job.
const qEnqueue = `WITH live AS (
	SELECT count(*) AS n FROM background_runs
	WHERE settings_id = $1 AND status IN ('queued', 'running', 'waiting')
), stored AS (
	INSERT INTO background_runs (settings_id, id, job, status, deadline)
	SELECT $1, $2, $3, 'queued', $4 FROM live WHERE $5 <= 0 OR live.n < $5
	ON CONFLICT DO NOTHING
	RETURNING id
), conversation AS (
	INSERT INTO conversations (settings_id, conversation_id)
	SELECT $1, id FROM stored
	ON CONFLICT DO NOTHING
)
SELECT (SELECT n FROM live), EXISTS (SELECT 1 FROM stored)`

// qTenantLock orders the enqueues of one tenant, so that its limit holds
// against concurrent ones.
const qTenantLock = `SELECT pg_advisory_xact_lock(hashtextextended('typeshift.background.' || $1, 0))`

// Enqueue implements [background.Queue]: the job's row, the sub-agent's
// conversation and River's jobs are stored in one transaction, as the
// tenant.
func (q *Queue) Enqueue(ctx context.Context, job background.Job, limit int) error {
	if err := storage.CheckIDs(job.SettingsID, job.ID); err != nil {
		return fmt.Errorf("riverqueue: enqueue: %w", err)
	}
	if job.Created.IsZero() {
		job.Created = time.Now().UTC()
	}
	data, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("riverqueue: enqueue: %w", err)
	}
	var deadline *time.Time
	if !job.Deadline.IsZero() {
		deadline = &job.Deadline
	}
	err = q.store.TenantTx(ctx, job.SettingsID, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if limit > 0 {
			b.Queue(qTenantLock, job.SettingsID)
		}
		var live int
		var stored bool
		b.Queue(qEnqueue, job.SettingsID, job.ID, data, deadline, limit).QueryRow(func(row pgx.Row) error {
			return row.Scan(&live, &stored)
		})
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		if !stored {
			if limit > 0 && live >= limit {
				return fmt.Errorf("riverqueue: %d live background runs, at most %d: %w", live, limit, background.ErrLimit)
			}
			return fmt.Errorf("riverqueue: job %q: %w", job.ID, background.ErrExists)
		}
		_, err := q.inserter.InsertManyTx(ctx, tx, []river.InsertManyParams{
			{Args: runArgs{SettingsID: job.SettingsID, ID: job.ID}, InsertOpts: q.runOpts()},
			{Args: watchArgs{SettingsID: job.SettingsID, ID: job.ID}, InsertOpts: q.watchOpts(job.Deadline)},
		})
		return err
	})
	if err != nil && !errors.Is(err, background.ErrLimit) && !errors.Is(err, background.ErrExists) {
		return fmt.Errorf("riverqueue: enqueue: %w", err)
	}
	return err
}

// qState reads a job's row.
const qState = `SELECT job, status, result, error, pending, attempts, generation, cancel_requested, updated_at
FROM background_runs WHERE settings_id = $1 AND id = $2`

// row is a job's row as qState reads it.
type row struct {
	state      background.State
	generation int
	cancel     bool
}

func scanRow(r pgx.Row) (row, error) {
	var out row
	var job, pending []byte
	err := r.Scan(&job, &out.state.Status, &out.state.Result, &out.state.Error, &pending, &out.state.Attempts,
		&out.generation, &out.cancel, &out.state.Updated)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(job, &out.state.Job); err != nil {
		return out, fmt.Errorf("riverqueue: stored job: %w", err)
	}
	if len(pending) > 0 {
		out.state.Pending = pending
	}
	out.state.Updated = out.state.Updated.UTC()
	return out, nil
}

// readRow reads a job's row in tx, locked when lock is set; a missing one is
// background.ErrNotFound.
func readRow(ctx context.Context, tx pgx.Tx, settingsID, id string, lock bool) (row, error) {
	if err := storage.CheckIDs(settingsID, id); err != nil {
		// No job has an id a store refuses: a handle the model garbled is one that does not exist.
		return row{}, fmt.Errorf("riverqueue: job %q: %w", id, background.ErrNotFound)
	}
	query := qState
	if lock {
		query += ` FOR UPDATE`
	}
	r, err := scanRow(tx.QueryRow(ctx, query, settingsID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("riverqueue: job %q: %w", id, background.ErrNotFound)
	}
	return r, err
}

// State implements [background.Queue]. Another tenant's job is not there for
// the tenant policy of background_runs, so it is ErrNotFound.
func (q *Queue) State(ctx context.Context, settingsID, id string) (background.State, error) {
	var out row
	err := q.store.TenantTx(ctx, settingsID, func(tx pgx.Tx) error {
		var err error
		out, err = readRow(ctx, tx, settingsID, id, false)
		return err
	})
	return out.state, err
}

// qResume puts a waiting job back in the queue, in its next generation.
const qResume = `UPDATE background_runs
SET status = 'queued', generation = generation + 1, job = $3, pending = NULL, updated_at = now()
WHERE settings_id = $1 AND id = $2 AND status = 'waiting'
RETURNING generation`

// qMergeAnswers replaces the answers of a job that an earlier Resume queued.
const qMergeAnswers = `UPDATE background_runs SET job = $3, updated_at = now()
WHERE settings_id = $1 AND id = $2 AND status = 'queued'`

// Resume implements [background.Queue]: the answers, the job's new
// generation and its River job are stored in one transaction. Answers for a
// job an earlier Resume queued, and no worker has started yet, join those
// answers; the row's lock orders Resume and the worker's start.
func (q *Queue) Resume(ctx context.Context, settingsID, id string, answers json.RawMessage) error {
	return q.store.TenantTx(ctx, settingsID, func(tx pgx.Tx) error {
		r, err := readRow(ctx, tx, settingsID, id, true)
		if err != nil {
			return err
		}
		job := r.state.Job
		resumed := r.state.Status == background.StatusQueued && r.generation > 0
		if r.state.Status != background.StatusWaiting && !resumed {
			return fmt.Errorf("riverqueue: job %q is %s: %w", id, r.state.Status, background.ErrNotWaiting)
		}
		if resumed {
			if job.Answers, err = mergeAnswers(job.Answers, answers); err != nil {
				return err
			}
		} else {
			job.Answers = answers
		}
		data, err := json.Marshal(job)
		if err != nil {
			return err
		}
		if resumed {
			_, err := tx.Exec(ctx, qMergeAnswers, settingsID, id, data)
			return err
		}
		var gen int
		if err := tx.QueryRow(ctx, qResume, settingsID, id, data).Scan(&gen); err != nil {
			return fmt.Errorf("riverqueue: resume: %w", err)
		}
		_, err = q.inserter.InsertTx(ctx, tx, runArgs{SettingsID: settingsID, ID: id, Generation: gen}, q.runOpts())
		return err
	})
}

// mergeAnswers joins two JSON arrays of approval answers.
func mergeAnswers(a, b json.RawMessage) (json.RawMessage, error) {
	var x, y []chat.ApprovalAnswer
	if len(a) > 0 {
		if err := json.Unmarshal(a, &x); err != nil {
			return nil, fmt.Errorf("riverqueue: answers: %w", err)
		}
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("riverqueue: answers: %w", err)
	}
	return json.Marshal(append(x, y...))
}

// qRunJobIDs finds the River jobs that may still run a background job.
const qRunJobIDs = `SELECT id FROM river_job
WHERE kind = 'typeshift_background_run' AND args @> jsonb_build_object('settings_id', $1::text, 'id', $2::text)
  AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`

// Cancel implements [background.Queue]. A queued or waiting job ends
// cancelled, and its report is stored, in the transaction that cancels its
// River job; a running one is marked, and River cancels its worker's
// context (on whichever instance runs it) when the transaction commits.
func (q *Queue) Cancel(ctx context.Context, settingsID, id string) error {
	return q.store.TenantTx(ctx, settingsID, func(tx pgx.Tx) error {
		r, err := readRow(ctx, tx, settingsID, id, true)
		if err != nil {
			return err
		}
		switch r.state.Status {
		case background.StatusQueued, background.StatusWaiting:
			o := background.Ended(r.state.Job, background.StatusCancelled, "the caller cancelled it")
			if _, err := q.finishTx(ctx, tx, r.state.Job, r.generation, o, r.state.Status); err != nil {
				return err
			}
		case background.StatusRunning:
			if _, err := tx.Exec(ctx, `UPDATE background_runs SET cancel_requested = true, updated_at = now()
				WHERE settings_id = $1 AND id = $2`, settingsID, id); err != nil {
				return err
			}
		default:
			return nil // ended already
		}
		return q.cancelRunJobs(ctx, tx, settingsID, id)
	})
}

// cancelRunJobs cancels, in tx, the River jobs that may still run a job.
func (q *Queue) cancelRunJobs(ctx context.Context, tx pgx.Tx, settingsID, id string) error {
	rows, err := tx.Query(ctx, qRunJobIDs, settingsID, id)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	for _, jid := range ids {
		if _, err := q.inserter.JobCancelTx(ctx, tx, jid); err != nil && !errors.Is(err, river.ErrNotFound) {
			return err
		}
	}
	return nil
}

// qFinish records an outcome of generation $7 when the job is in one of the
// statuses $8; it matches no row when another attempt recorded an end first.
const qFinish = `UPDATE background_runs
SET status = $3, result = $4, error = $5, pending = $6, cancel_requested = false, updated_at = now()
WHERE settings_id = $1 AND id = $2 AND generation = $7 AND status = ANY($8::text[])`

// finishTx records o for job, in tx, when the job is in generation gen and in
// one of the statuses from, and then stores o's report as steering input of
// the caller's conversation in the same transaction: the report is in the
// caller's conversation if and only if the outcome is recorded, and an
// outcome is recorded once. It reports whether it recorded o.
func (q *Queue) finishTx(ctx context.Context, tx pgx.Tx, job background.Job, gen int, o background.Outcome, from ...background.Status) (bool, error) {
	if o.Status != background.StatusWaiting && !o.Status.Final() {
		o = background.Ended(job, background.StatusFailed, fmt.Sprintf("the run ended with status %q", o.Status))
	}
	var pending []byte
	if o.Status == background.StatusWaiting && len(o.Pending) > 0 {
		pending = o.Pending
	}
	statuses := make([]string, len(from))
	for i, s := range from {
		statuses[i] = string(s)
	}
	tag, err := tx.Exec(ctx, qFinish, job.SettingsID, job.ID, string(o.Status), o.Result, o.Error, pending, gen, statuses)
	if err != nil {
		return false, fmt.Errorf("riverqueue: recording the outcome: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if len(o.Report) > 0 && job.Caller.ConversationID != "" {
		err := q.store.SteerTx(ctx, tx, job.SettingsID, job.Caller.ConversationID, o.Report)
		// A caller's conversation deleted since has nobody to tell; the outcome is recorded all the same.
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return false, fmt.Errorf("riverqueue: reporting to the caller: %w", err)
		}
	}
	return true, nil
}
