package riverqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// Work implements [background.Queue]: it starts a River client that runs this
// instance's share of every tenant's jobs, and stops it when ctx ends,
// cancelling the runs still going (River starts them again later, on any
// instance). It returns nil when ctx ends.
func (q *Queue) Work(ctx context.Context, run background.RunFunc) error {
	if run == nil {
		return errors.New("riverqueue: Work: nil RunFunc")
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &runWorker{q: q, run: run, stopping: ctx.Done()}); err != nil {
		return fmt.Errorf("riverqueue: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &watchWorker{q: q}); err != nil {
		return fmt.Errorf("riverqueue: %w", err)
	}
	cfg := &river.Config{
		ID:          q.opts.ID,
		Logger:      q.opts.Logger,
		Queues:      map[string]river.QueueConfig{q.opts.Queue: {MaxWorkers: q.opts.Workers}},
		Workers:     workers,
		MaxAttempts: q.opts.MaxAttempts,
		// River rescues only jobs with a timeout; an attempt that reaches it is ended and made again.
		JobTimeout:           q.opts.RescueAfter,
		RescueStuckJobsAfter: q.opts.RescueAfter,
		FetchPollInterval:    q.opts.PollInterval,
		FetchCooldown:        q.opts.FetchCooldown,
	}
	if q.opts.Backoff != nil {
		cfg.RetryPolicy = backoff(q.opts.Backoff)
	}
	pool := q.opts.Direct
	if pool == nil {
		pool = q.pool
		behind, err := postgres.ThroughPooler(ctx, pool)
		if err != nil {
			return fmt.Errorf("riverqueue: %w", err)
		}
		if behind {
			return &postgres.ConfigError{Setting: "riverqueue.Options.Direct",
				Problem: "the queue's pool reaches Postgres through a pooler, which cannot hold River's LISTEN and leader election",
				Fix:     "set it to a pool of direct connections to the same database"}
		}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return fmt.Errorf("riverqueue: %w", err)
	}
	// River's client runs until stopped, not until its start context ends.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("riverqueue: starting River: %w", err)
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := client.StopAndCancel(stop); err != nil {
		return fmt.Errorf("riverqueue: stopping River: %w", err)
	}
	return nil
}

// backoff adapts Options.Backoff to River's retry policy.
type backoff func(attempt int) time.Duration

// NextRetry implements river.ClientRetryPolicy.
func (b backoff) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(b(max(job.Attempt, 1)))
}

// errAttempt is what River records of a failed attempt: nothing of the
// tenant's, whose error text stays in background_runs under its row-level
// security.
var errAttempt = errors.New("background run attempt failed (the reason is in background_runs)")

// runWorker runs a background job once: it marks the job running, runs it,
// and records its outcome with its report.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	q        *Queue
	run      background.RunFunc
	stopping <-chan struct{} // Work's context, ended at shutdown
}

// qStart marks a job of generation $3 running, for another attempt, when it
// is queued or was running (a worker crashed in it, or is slow); a job that
// ended, waits or moved to another generation is left alone.
const qStart = `UPDATE background_runs SET status = 'running', attempts = attempts + 1, updated_at = now()
WHERE settings_id = $1 AND id = $2 AND generation = $3 AND status IN ('queued', 'running')
RETURNING job, cancel_requested`

// Work implements river.Worker.
func (w *runWorker) Work(ctx context.Context, rj *river.Job[runArgs]) error {
	a := rj.Args
	var (
		job    background.Job
		runIt  bool
		record = context.WithoutCancel(ctx)
	)
	err := w.q.store.TenantTx(ctx, a.SettingsID, func(tx pgx.Tx) error {
		var data []byte
		var cancelled bool
		err := tx.QueryRow(ctx, qStart, a.SettingsID, a.ID, a.Generation).Scan(&data, &cancelled)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // ended, waiting, or superseded: nothing to do
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &job); err != nil {
			return fmt.Errorf("riverqueue: stored job: %w", err)
		}
		switch {
		case cancelled:
			_, err = w.q.finishTx(ctx, tx, job, a.Generation,
				background.Ended(job, background.StatusCancelled, "the caller cancelled it"), background.StatusRunning)
		case !job.Deadline.IsZero() && !time.Now().Before(job.Deadline):
			_, err = w.q.finishTx(ctx, tx, job, a.Generation,
				background.Ended(job, background.StatusTimedOut, "its deadline passed before it started"), background.StatusRunning)
		default:
			runIt = true
		}
		return err
	})
	if err != nil || !runIt {
		if err != nil {
			return errAttempt
		}
		return nil
	}

	rctx, stop := runContext(ctx, job.Deadline)
	defer stop()
	o, runErr := w.run(rctx, job)
	if runErr != nil {
		switch {
		case !job.Deadline.IsZero() && !time.Now().Before(job.Deadline):
			o = background.Ended(job, background.StatusTimedOut, "its deadline passed")
		case errors.Is(context.Cause(rctx), background.ErrCancelled):
			o = background.Ended(job, background.StatusCancelled, "the caller cancelled it")
		case w.shuttingDown():
			return errAttempt // another attempt, on any instance, starts it again
		case rj.Attempt < rj.MaxAttempts:
			// Keep the reason where only the tenant reads it, and let River try again after its backoff; the run
			// is queued again meanwhile (so that Cancel ends it at once).
			_ = w.q.store.TenantTx(record, a.SettingsID, func(tx pgx.Tx) error {
				_, err := tx.Exec(record, `UPDATE background_runs SET status = 'queued', error = $3, updated_at = now()
					WHERE settings_id = $1 AND id = $2 AND generation = $4 AND status = 'running'`,
					a.SettingsID, a.ID, runErr.Error(), a.Generation)
				return err
			})
			return errAttempt
		default:
			o = background.Ended(job, background.StatusFailed, runErr.Error())
		}
	}
	err = w.q.store.TenantTx(record, a.SettingsID, func(tx pgx.Tx) error {
		_, err := w.q.finishTx(record, tx, job, a.Generation, o, background.StatusRunning)
		return err
	})
	if err != nil {
		return errAttempt
	}
	return nil
}

// errAttemptTimeout is the cause of a run's context that ended because its attempt ran for Options.RescueAfter:
// the attempt failed and another is made, unlike a job whose own deadline passed.
var errAttemptTimeout = errors.New("riverqueue: the attempt ran for RescueAfter")

// runContext is the context of one run of a job: River's job context, whose ends are given causes the RunFunc
// tells apart (background.ErrCancelled for Cancel, errAttemptTimeout for River's timeout, the worker's shutdown
// as it is), bounded by the job's own deadline (context.DeadlineExceeded).
func runContext(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(ctx, func() {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, river.ErrJobCancelledRemotely):
			cancel(background.ErrCancelled)
		case errors.Is(cause, context.DeadlineExceeded):
			cancel(errAttemptTimeout)
		default:
			cancel(cause)
		}
	})
	stop := func() { unhook(); cancel(nil) }
	if deadline.IsZero() {
		return rctx, stop
	}
	dctx, dcancel := context.WithDeadline(rctx, deadline)
	return dctx, func() { dcancel(); stop() }
}

// shuttingDown reports whether Work's context ended.
func (w *runWorker) shuttingDown() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}

// watchWorker ends a live job that no run will end: one whose deadline
// passed while it was queued or waiting (or while its worker was gone), and
// one whose River run jobs are all gone without an end recorded (its last
// attempt's worker crashed, or it was cancelled while its worker was gone).
// Otherwise it looks again later.
type watchWorker struct {
	river.WorkerDefaults[watchArgs]
	q *Queue
}

// qRunJobLive says whether a River job may still run generation $3 of a job.
const qRunJobLive = `SELECT EXISTS (SELECT 1 FROM river_job
WHERE kind = 'typeshift_background_run'
  AND args @> jsonb_build_object('settings_id', $1::text, 'id', $2::text, 'generation', $3::integer)
  AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))`

// Work implements river.Worker.
func (w *watchWorker) Work(ctx context.Context, rj *river.Job[watchArgs]) error {
	a := rj.Args
	var next time.Duration
	err := w.q.store.TenantTx(ctx, a.SettingsID, func(tx pgx.Tx) error {
		r, err := readRow(ctx, tx, a.SettingsID, a.ID, true)
		if errors.Is(err, background.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		st, job := r.state.Status, r.state.Job
		if st.Final() {
			return nil
		}
		var runLive bool
		if st != background.StatusWaiting {
			if err := tx.QueryRow(ctx, qRunJobLive, a.SettingsID, a.ID, r.generation).Scan(&runLive); err != nil {
				return err
			}
		}
		expired := !job.Deadline.IsZero() && !time.Now().Before(job.Deadline)
		var o background.Outcome
		switch {
		case expired && (st != background.StatusRunning || !runLive):
			o = background.Ended(job, background.StatusTimedOut, "its deadline passed")
		case st != background.StatusWaiting && !runLive && r.cancel:
			o = background.Ended(job, background.StatusCancelled, "the caller cancelled it")
		case st != background.StatusWaiting && !runLive:
			o = background.Ended(job, background.StatusFailed, "its worker stopped and no attempt is left")
		default:
			next = w.q.opts.WatchEvery
			if !job.Deadline.IsZero() {
				if until := time.Until(job.Deadline); until < next {
					next = max(until, time.Second)
				}
			}
			return nil
		}
		_, err = w.q.finishTx(ctx, tx, job, r.generation, o, st)
		return err
	})
	if err != nil {
		return errAttempt
	}
	if next > 0 {
		return river.JobSnooze(next)
	}
	return nil
}
