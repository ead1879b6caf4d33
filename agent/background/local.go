package background

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// LocalQueue is a [Queue] that keeps its jobs in the memory of the process and runs them in its goroutines. It
// works with any store, and is the queue for the memory store. Its jobs do not survive a restart: a process that
// stops loses the jobs it holds, queued, waiting or running (a running one is reported to its caller as failed
// when Work's context ends, so long as the store still answers). Use a durable queue (package riverqueue) when
// background runs must outlive the process or run on another instance.
type LocalQueue struct {
	store storage.ConversationStore
	owner string

	mu    sync.Mutex
	jobs  map[jobKey]*localJob
	live  map[string]int // live jobs by tenant
	ended []jobKey       // ended jobs, in the order they ended, for pruning
	ready []jobKey       // queued jobs, oldest first
	wake  chan struct{}  // a job became ready
}

type jobKey struct{ settingsID, id string }

// localJob is a job and what the queue needs to stop it.
type localJob struct {
	st      State
	cancel  context.CancelCauseFunc // set while running
	stop    bool                    // cancelled before its worker set cancel
	resumed bool                    // queued by Resume, not started yet
	timer   *time.Timer             // the deadline of a job that is not running
}

// NewLocalQueue returns a queue that delivers its jobs' reports through store (see [Deliver]); owner names the
// claims Deliver takes, "" meaning background:pid.
func NewLocalQueue(store storage.ConversationStore, owner string) *LocalQueue {
	if owner == "" {
		owner = fmt.Sprintf("background:%d", os.Getpid())
	}
	return &LocalQueue{store: store, owner: owner, jobs: map[jobKey]*localJob{}, live: map[string]int{}, wake: make(chan struct{}, 1)}
}

// Enqueue implements [Queue].
func (q *LocalQueue) Enqueue(ctx context.Context, job Job, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := jobKey{job.SettingsID, job.ID}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.jobs[k]; ok {
		return fmt.Errorf("job %q: %w", job.ID, ErrExists)
	}
	if live := q.live[job.SettingsID]; limit > 0 && live >= limit {
		return fmt.Errorf("%d of %d: %w", live, limit, ErrLimit)
	}
	if job.Created.IsZero() {
		job.Created = time.Now()
	}
	q.prune(time.Now().Add(-LocalRetention))
	q.live[job.SettingsID]++
	j := &localJob{st: State{Job: job, Status: StatusQueued, Updated: time.Now()}}
	q.jobs[k] = j
	q.armDeadline(k, j)
	q.push(k)
	return nil
}

// LocalRetention is how long a LocalQueue keeps an ended job for State: its handle answers ErrNotFound after.
const LocalRetention = time.Hour

// prune forgets the jobs that ended before cutoff, oldest first.
func (q *LocalQueue) prune(cutoff time.Time) {
	for len(q.ended) > 0 {
		j, ok := q.jobs[q.ended[0]]
		if ok && !j.st.Updated.Before(cutoff) {
			return
		}
		delete(q.jobs, q.ended[0])
		q.ended = q.ended[1:]
	}
}

// State implements [Queue].
func (q *LocalQueue) State(ctx context.Context, settingsID, id string) (State, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	j, ok := q.jobs[jobKey{settingsID, id}]
	if !ok {
		return State{}, fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	return j.st, nil
}

// Resume implements [Queue].
func (q *LocalQueue) Resume(ctx context.Context, settingsID, id string, answers json.RawMessage) error {
	k := jobKey{settingsID, id}
	q.mu.Lock()
	defer q.mu.Unlock()
	j, ok := q.jobs[k]
	switch {
	case !ok:
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	case j.st.Status == StatusQueued && j.resumed:
		merged, err := mergeAnswers(j.st.Job.Answers, answers)
		if err != nil {
			return err
		}
		j.st.Job.Answers = merged
		return nil
	case j.st.Status != StatusWaiting:
		return fmt.Errorf("job %q is %s: %w", id, j.st.Status, ErrNotWaiting)
	}
	j.st.Job.Answers, j.st.Status, j.st.Updated, j.resumed = answers, StatusQueued, time.Now(), true
	q.push(k)
	return nil
}

// mergeAnswers joins two JSON arrays of approval answers.
func mergeAnswers(a, b json.RawMessage) (json.RawMessage, error) {
	var x, y []chat.ApprovalAnswer
	if len(a) > 0 {
		if err := json.Unmarshal(a, &x); err != nil {
			return nil, fmt.Errorf("background: answers: %w", err)
		}
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("background: answers: %w", err)
	}
	return json.Marshal(append(x, y...))
}

// Cancel implements [Queue].
func (q *LocalQueue) Cancel(ctx context.Context, settingsID, id string) error {
	k := jobKey{settingsID, id}
	q.mu.Lock()
	j, ok := q.jobs[k]
	if !ok {
		q.mu.Unlock()
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	switch j.st.Status {
	case StatusRunning:
		if j.cancel != nil {
			j.cancel(ErrCancelled)
		} else {
			j.stop = true // its worker has not started it yet: it cancels it at once
		}
		q.mu.Unlock()
		return nil
	case StatusQueued, StatusWaiting:
		out := Ended(j.st.Job, StatusCancelled, "it was cancelled before it finished")
		job, ok := q.record(j, out) // under the same lock, so no worker starts it now
		q.mu.Unlock()
		if ok {
			return q.deliver(ctx, job, out)
		}
		return nil
	}
	q.mu.Unlock()
	return nil // it has ended
}

// Work implements [Queue]: it runs each ready job in a goroutine of its own until ctx ends, then waits for the
// jobs it started.
func (q *LocalQueue) Work(ctx context.Context, run RunFunc) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		k, j, ok := q.next()
		if !ok {
			select {
			case <-ctx.Done():
				return nil
			case <-q.wake:
				continue
			}
		}
		if ctx.Err() != nil {
			q.mu.Lock()
			q.ready = append([]jobKey{k}, q.ready...) // not started: leave it for another Work
			j.st.Status = StatusQueued
			q.mu.Unlock()
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.runOne(ctx, k, j, run)
		}()
	}
}

// next takes the oldest ready job and marks it running.
func (q *LocalQueue) next() (jobKey, *localJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) > 0 {
		k := q.ready[0]
		q.ready = q.ready[1:]
		j, ok := q.jobs[k]
		if !ok || j.st.Status != StatusQueued {
			continue // cancelled or timed out while it waited
		}
		j.st.Status, j.st.Attempts, j.st.Updated, j.resumed = StatusRunning, j.st.Attempts+1, time.Now(), false
		if j.timer != nil {
			j.timer.Stop()
			j.timer = nil
		}
		return k, j, true
	}
	return jobKey{}, nil, false
}

// maxAttempts bounds how often the queue runs a job whose RunFunc returned an error.
const maxAttempts = 3

// runOne runs a job to its outcome, trying again after errors, and records and delivers the outcome.
func (q *LocalQueue) runOne(ctx context.Context, k jobKey, j *localJob, run RunFunc) {
	var out Outcome
	for attempt := 1; ; attempt++ {
		jctx, cancel := context.WithCancelCause(ctx)
		q.mu.Lock()
		j.cancel = cancel
		if j.stop {
			cancel(ErrCancelled)
		}
		job := j.st.Job
		q.mu.Unlock()
		var stop context.CancelFunc = func() {}
		if !job.Deadline.IsZero() {
			jctx, stop = context.WithDeadline(jctx, job.Deadline)
		}
		o, err := run(jctx, job)
		stop()
		cancel(nil)
		if err == nil {
			out = o
			break
		}
		switch {
		case ctx.Err() != nil:
			out = Ended(job, StatusFailed, "the process running it stopped: "+err.Error())
		case attempt >= maxAttempts:
			out = Ended(job, StatusFailed, err.Error())
		default:
			select {
			case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
				q.mu.Lock()
				j.st.Attempts++
				q.mu.Unlock()
				continue
			case <-ctx.Done():
				out = Ended(job, StatusFailed, "the process running it stopped: "+err.Error())
			}
		}
		break
	}
	_ = q.finish(context.WithoutCancel(ctx), k, out)
}

// finish records out and delivers its report, once: a second outcome for the same phase of a job (a Cancel racing
// a deadline) is dropped. A waiting outcome leaves the job live.
func (q *LocalQueue) finish(ctx context.Context, k jobKey, out Outcome) error {
	q.mu.Lock()
	j, ok := q.jobs[k]
	var job Job
	if ok {
		job, ok = q.record(j, out)
	}
	q.mu.Unlock()
	if !ok {
		return nil
	}
	return q.deliver(ctx, job, out)
}

// record stores out in j, with q.mu held, unless j has ended already; it reports whether it did.
func (q *LocalQueue) record(j *localJob, out Outcome) (Job, bool) {
	if j.st.Status.Final() {
		return Job{}, false
	}
	j.st.Status, j.st.Result, j.st.Error, j.st.Updated, j.cancel = out.Status, out.Result, out.Error, time.Now(), nil
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	k := jobKey{j.st.Job.SettingsID, j.st.Job.ID}
	if out.Status == StatusWaiting {
		j.st.Pending = out.Pending
		q.armDeadline(k, j)
	} else {
		j.st.Pending = nil
		if q.live[k.settingsID]--; q.live[k.settingsID] <= 0 {
			delete(q.live, k.settingsID)
		}
		q.ended = append(q.ended, k)
	}
	return j.st.Job, true
}

// deliver stores out's report as steering input of the job's caller.
func (q *LocalQueue) deliver(ctx context.Context, job Job, out Outcome) error {
	if len(out.Report) == 0 {
		return nil
	}
	// Long enough for a crashed run's lease on the caller's conversation to expire (30 seconds by default).
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	return Deliver(dctx, q.store, job.SettingsID, job.Caller.ConversationID, q.owner, out.Report)
}

// armDeadline ends a job that is not running when its deadline passes.
func (q *LocalQueue) armDeadline(k jobKey, j *localJob) {
	if j.st.Job.Deadline.IsZero() || j.timer != nil {
		return
	}
	job := j.st.Job
	j.timer = time.AfterFunc(time.Until(job.Deadline), func() {
		out := Ended(job, StatusTimedOut, "its deadline passed before it finished")
		q.mu.Lock()
		cur, ok := q.jobs[k]
		live := ok && cur.timer != nil && (cur.st.Status == StatusQueued || cur.st.Status == StatusWaiting)
		var ended Job
		if live {
			cur.timer = nil
			ended, live = q.record(cur, out)
		}
		q.mu.Unlock()
		if live {
			_ = q.deliver(context.Background(), ended, out)
		}
	})
}

// push makes a job ready and wakes a worker.
func (q *LocalQueue) push(k jobKey) {
	q.ready = append(q.ready, k)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

var _ Queue = (*LocalQueue)(nil)
