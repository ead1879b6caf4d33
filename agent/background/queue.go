package background

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/typeshift-go/typeshift/agent"
)

// A Job is one background sub-agent run, as a queue stores it. Queues treat every field as opaque data: they store
// it, hand it back to [RunFunc] and filter on SettingsID.
type Job struct {
	// ID is the handle the calling model gets, unique in the tenant. It is also the id of the sub-agent's own
	// conversation.
	ID string `json:"id"`
	// SettingsID is the caller's tenant; the job runs as it, and only it can read or cancel the job.
	SettingsID string `json:"settings_id"`
	// Agent names the delegate host (the [Manager] maps it to its *agent.Host).
	Agent string `json:"agent"`
	// Task is the first user message of the sub-agent's conversation.
	Task string `json:"task"`
	// Mode is the caller's mode.
	Mode string `json:"mode,omitempty"`
	// Standing is a copy of the caller's standing approvals (agent.CallerApprovals).
	Standing []agent.StandingApproval `json:"standing,omitempty"`
	// Caller is where the job's reports go.
	Caller Caller `json:"caller"`
	// Deadline bounds the job's whole life, queued, running and waiting; zero means none.
	Deadline time.Time `json:"deadline,omitzero"`
	// Trace is the W3C trace context (traceparent, tracestate) of the span of the call that started the job; the
	// job's spans link to it.
	Trace map[string]string `json:"trace,omitempty"`
	// Answers, set by [Queue.Resume], holds the approval answers the next run of the sub-agent's conversation
	// takes as its input (a JSON array of chat.ApprovalAnswer); empty for the first run, whose input is Task.
	Answers json.RawMessage `json:"answers,omitempty"`
	// Depth is how many background runs lie between the job and the first caller, itself included: 1 for a job a
	// conversation's own run started, 2 for one that job's run started, and so on (see Options.MaxDepth).
	Depth int `json:"depth,omitempty"`
	// Created is when the job was enqueued.
	Created time.Time `json:"created"`
}

// Caller names the run that started a job: where its reports go, and which tool call started it.
type Caller struct {
	// Agent is the caller's agent name.
	Agent string `json:"agent"`
	// ConversationID is the caller's conversation, in the job's tenant; reports are steered into it.
	ConversationID string `json:"conversation_id"`
	// CallID is the id of the tool call that started the job.
	CallID string `json:"call_id"`
}

// Status is where a job is in its life.
type Status string

// The statuses of a job. Queued, running and waiting are live (they count towards the tenant's limit); the others
// are final.
const (
	StatusQueued    Status = "queued"    // stored, not started (or resumed, not started again)
	StatusRunning   Status = "running"   // a worker runs it
	StatusWaiting   Status = "waiting"   // the sub-agent waits for approval answers from the caller's conversation
	StatusSucceeded Status = "succeeded" // the sub-agent answered; State.Result holds the answer
	StatusFailed    Status = "failed"    // the sub-agent failed; State.Error says why
	StatusCancelled Status = "cancelled" // someone cancelled it
	StatusTimedOut  Status = "timed_out" // its deadline passed
)

// Final reports whether s is an end: succeeded, failed, cancelled or timed out.
func (s Status) Final() bool {
	switch s {
	case StatusSucceeded, StatusFailed, StatusCancelled, StatusTimedOut:
		return true
	}
	return false
}

// State is a job as a queue knows it.
type State struct {
	Job    Job    `json:"job"`
	Status Status `json:"status"`
	// Result is the sub-agent's final text, when it succeeded.
	Result string `json:"result,omitempty"`
	// Error says why, when it failed, was cancelled or timed out.
	Error string `json:"error,omitempty"`
	// Pending holds the approval requests a waiting job surfaced (a JSON array; see [Outcome.Pending]).
	Pending json.RawMessage `json:"pending,omitempty"`
	// Attempts is how many times a worker started the job.
	Attempts int       `json:"attempts"`
	Updated  time.Time `json:"updated"`
}

// An Outcome is how one run of a job ended, as [RunFunc] returns it and the queue records it.
type Outcome struct {
	// Status is StatusWaiting or a final status.
	Status Status
	// Result and Error are as in [State].
	Result string
	Error  string
	// Pending is recorded in State.Pending (waiting only).
	Pending json.RawMessage
	// Report is the steering input that tells the caller (a JSON array of messages, chat.MarshalMessages): the
	// queue stores it as steering input of Job.Caller.ConversationID in Job.SettingsID, exactly once per outcome,
	// as [Deliver] does. A durable queue stores it in the same transaction as the state.
	Report []byte
}

// A Queue stores background jobs (durably, or in the process only) and runs them on its workers.
type Queue interface {
	// Enqueue stores job as queued. It fails with ErrLimit when the tenant already has limit jobs queued, running
	// or waiting (limit <= 0: no limit), and with ErrExists when a job with job.ID exists in the tenant. A durable
	// queue stores the job in the same transaction as the sub-agent conversation's first write.
	Enqueue(ctx context.Context, job Job, limit int) error
	// State reads a job as settingsID; another tenant's job is ErrNotFound, as a missing one.
	State(ctx context.Context, settingsID, id string) (State, error)
	// Resume puts a waiting job back in the queue with answers as its Job.Answers. A job that an earlier Resume
	// queued and that has not started yet takes the answers in addition to those it has (the user answered several
	// of its requests at once). It fails with ErrNotFound for another tenant's or a missing job and with
	// ErrNotWaiting when the job is neither waiting nor so queued.
	Resume(ctx context.Context, settingsID, id string, answers json.RawMessage) error
	// Cancel asks a job to stop. A queued or waiting job ends cancelled at once, with the report of
	// [Ended](job, StatusCancelled, ...); a running one has its context cancelled with the cause ErrCancelled,
	// and its RunFunc returns the cancelled outcome. Cancelling a job that has ended is no error and changes nothing. Another tenant's job
	// is ErrNotFound.
	Cancel(ctx context.Context, settingsID, id string) error
	// Work runs jobs with run until ctx ends, each with a context that ends at Job.Deadline and when the job is
	// cancelled. run's outcome is recorded and its report delivered exactly once. When run returns an error the
	// queue may try again later; when it gives up it records and delivers [Ended](job, StatusFailed, err).
	// A job whose deadline passes while it is queued or waiting ends with [Ended](job, StatusTimedOut, ...).
	Work(ctx context.Context, run RunFunc) error
}

// RunFunc runs one job to its next outcome: its end, or a wait for approval. An error (not an outcome) means the
// attempt could not be made and may be tried again.
type RunFunc func(ctx context.Context, job Job) (Outcome, error)

// Errors of a Queue, for errors.Is.
var (
	// ErrLimit reports a tenant that already runs as many background jobs as it may.
	ErrLimit = errors.New("background: the tenant runs as many background sub-agents as it may")
	// ErrExists reports a job id that is taken.
	ErrExists = errors.New("background: a job with this id exists")
	// ErrNotFound reports a job that does not exist in the tenant (which includes another tenant's job).
	ErrNotFound = errors.New("background: no such background run")
	// ErrNotWaiting reports answers for a job that does not wait for any.
	ErrNotWaiting = errors.New("background: the background run does not wait for approval")
	// ErrCancelled is the cause (context.Cause) of the context of a running job that Cancel stopped, which tells
	// a cancelled job from one whose worker shuts down.
	ErrCancelled = errors.New("background: the background run was cancelled")
)
