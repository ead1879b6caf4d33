package background

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// Options are a [Manager]'s limits and parts.
type Options struct {
	// Limit is how many background runs a tenant may have live at once (queued, running or waiting for approval);
	// a start beyond it is refused, and the calling model reads why. Zero means [DefaultLimit]; a negative Limit
	// means none, which lets a model that starts runs in a loop start as many as it likes.
	Limit int
	// TenantLimit, when set, reads a tenant's own limit at each start, in place of Limit: such as
	// budget.Meter.LiveRunsLimit, the live_runs of the tenant's budget, which its operator sets (see
	// docs/budgets.md). ok false means the tenant has none and Limit applies; a limit of zero allows no start. An
	// error refuses the start, and the calling model reads that it could not be started.
	TenantLimit func(ctx context.Context, settingsID string) (limit int, ok bool, err error)
	// MaxDepth bounds how deeply background runs start background runs of their own: a start from a run that is
	// already MaxDepth levels below the first caller is refused, and the calling model reads why. Zero or less
	// means agent.DefaultMaxDepth.
	MaxDepth int
	// Deadline bounds each background run's whole life from its start; when it passes the run ends as timed out
	// and its caller is told. Zero means none.
	Deadline time.Duration
	// Key binds the approval requests a Manager surfaces in callers' conversations to the background run and the
	// request they stand for (HMAC-SHA256). Give every instance of a service the same secret; nil means a random
	// key of this process, so that requests surfaced by another process are refused.
	Key []byte
	// TracerProvider makes the spans of background runs; nil means otel.GetTracerProvider(). Each run's span
	// links to the span of the tool call that started it.
	TracerProvider trace.TracerProvider
}

// DefaultLimit is how many background runs a tenant may have live at once when Options.Limit is zero.
const DefaultLimit = 16

// A Manager offers background sub-agents as tools and runs the jobs its [Queue] hands it. Create one with [New],
// give callers its tools ([Manager.Tools]), register the caller hosts ([Manager.Register]) and call
// [Manager.Work] in a goroutine. It is safe for concurrent use.
type Manager struct {
	queue  Queue
	opts   Options
	key    []byte
	tracer trace.Tracer

	mu      sync.RWMutex
	hosts   map[string]*agent.Host           // by agent name: delegates and callers
	answers map[jobRef][]chat.ApprovalAnswer // answers gathered for waiting jobs (see answer)
}

// New returns a Manager that stores its jobs in queue.
func New(queue Queue, opts Options) *Manager {
	key := opts.Key
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	switch {
	case opts.Limit == 0:
		opts.Limit = DefaultLimit
	case opts.Limit < 0:
		opts.Limit = 0 // the queues' "no limit"
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = agent.DefaultMaxDepth
	}
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &Manager{queue: queue, opts: opts, key: key, tracer: tp.Tracer("github.com/typeshift-go/typeshift/agent/background"),
		hosts: map[string]*agent.Host{}, answers: map[jobRef][]chat.ApprovalAnswer{}}
}

// Queue returns the Manager's queue.
func (m *Manager) Queue() Queue { return m.queue }

// Register tells the Manager of hosts by their names: the callers whose conversations its runs report to (it asks
// for approvals in them, as the caller's host) and delegates offered by another process's Manager. Delegates
// given to [Manager.Tools] are registered already.
func (m *Manager) Register(hosts ...*agent.Host) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range hosts {
		if h != nil {
			m.hosts[h.Name()] = h
		}
	}
}

func (m *Manager) host(name string) *agent.Host {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.hosts[name]
}

// Work runs the queue's jobs until ctx ends (see [Queue.Work]).
func (m *Manager) Work(ctx context.Context) error { return m.queue.Work(ctx, m.Run) }

// Cancel cancels the tenant's background run id: from the HTTP API, say. Another tenant's run is ErrNotFound.
func (m *Manager) Cancel(ctx context.Context, settingsID, id string) error {
	return m.queue.Cancel(ctx, settingsID, id)
}

// State reads the tenant's background run id. Another tenant's run is ErrNotFound.
func (m *Manager) State(ctx context.Context, settingsID, id string) (State, error) {
	return m.queue.State(ctx, settingsID, id)
}

// newJobID is a handle: random, so that one tenant cannot guess another's, and the id of the run's conversation.
func newJobID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "bg_" + hex.EncodeToString(b[:])
}

// depthKey is the context key of the depth of the background run whose tools are called: 1 for a run the first
// caller started.
type depthKey struct{}

// traceCarrier returns the W3C trace context of ctx's span, for the job's span link.
func traceCarrier(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c
}

// Run runs one job to its next outcome; it is the [RunFunc] of [Manager.Work], exported for queues that call it
// themselves.
func (m *Manager) Run(ctx context.Context, job Job) (Outcome, error) {
	// The run is a trace of its own, linked to the call that started it: it may outlive that call's trace by hours.
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("gen_ai.agent.name", job.Agent), attribute.String("gen_ai.conversation.id", job.ID),
			attribute.String("typeshift.background.caller_conversation", job.Caller.ConversationID))}
	if len(job.Trace) > 0 {
		if sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier(job.Trace))); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx, span := m.tracer.Start(ctx, "background_agent "+job.Agent, opts...)
	// A start from this run's tools is one level deeper (see start).
	ctx = context.WithValue(ctx, depthKey{}, job.Depth)
	out, err := m.run(ctx, job)
	switch {
	case err != nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	case out.Status == StatusSucceeded || out.Status == StatusWaiting:
	default:
		span.SetStatus(codes.Error, string(out.Status)+": "+out.Error)
	}
	span.SetAttributes(attribute.String("typeshift.background.status", string(out.Status)))
	span.End()
	return out, err
}

func (m *Manager) run(ctx context.Context, job Job) (Outcome, error) {
	h := m.host(job.Agent)
	if h == nil {
		return Ended(job, StatusFailed, fmt.Sprintf("no agent %q is offered in the background by this service", job.Agent)), nil
	}
	if err := ctx.Err(); err != nil {
		return m.stopped(ctx, job, err)
	}
	opts := []agent.RunOption{agent.SettingsID(job.SettingsID), agent.Conversation(job.ID)}
	if len(job.Answers) == 0 {
		// An attempt after one that stopped after handing the task over (its worker crashed, or its run
		// failed) must not hand it over again: it goes on from what the conversation holds.
		prior, err := h.LoadConversation(ctx, job.SettingsID, job.ID)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			opts = append(opts, agent.Text(job.Task))
		case err != nil:
			if ctx.Err() != nil {
				return m.stopped(ctx, job, err)
			}
			return Outcome{}, fmt.Errorf("background run %s: reading its conversation: %w", job.ID, err)
		default:
			if text, ok := answered(prior); ok {
				// The earlier attempt's run ended; only its outcome was not recorded.
				return Ended(job, StatusSucceeded, text), nil
			}
		}
		opts = append(opts, agent.Mode(job.Mode), agent.InheritApprovals(job.Standing))
	} else {
		var answers []chat.ApprovalAnswer
		if err := json.Unmarshal(job.Answers, &answers); err != nil {
			return Ended(job, StatusFailed, "its approval answers cannot be read: "+err.Error()), nil
		}
		for _, a := range answers {
			opts = append(opts, agent.Answer(a))
		}
	}
	res, err := runStreamed(ctx, h, opts)
	if err != nil {
		if ctx.Err() != nil {
			return m.stopped(ctx, job, err)
		}
		// Not tried again: the run may have stored steps, and a model's work is not free. The caller decides.
		return Ended(job, StatusFailed, err.Error()), nil
	}
	if len(res.Pending) == 1 && res.Pending[0].ToolID == agent.ExitPlanModeID {
		// In plan mode the run ends by presenting its plan, which is its answer, as with agent.AsTool.
		text := fmt.Sprintf("%s is in plan mode, changed nothing, and proposes this plan:\n%s", job.Agent, planOf(res.Pending[0].Call.Arguments))
		return Ended(job, StatusSucceeded, text), nil
	}
	if len(res.Pending) > 0 {
		return m.surface(ctx, job, res.Pending)
	}
	return Ended(job, StatusSucceeded, res.Text()), nil
}

// answered returns the answer of a conversation whose last run ended with one: its last message is the
// model's, with no tool call and nothing pending.
func answered(c *agent.ConversationState) (string, bool) {
	if c == nil || len(c.Messages) == 0 || len(c.Pending) > 0 {
		return "", false
	}
	last := c.Messages[len(c.Messages)-1]
	if last.Role != chat.RoleAssistant || len(last.ToolCalls()) > 0 {
		return "", false
	}
	return last.Text(), true
}

// runStreamed runs h as a streaming run, so that the updates of the background run's conversation are published
// for its watchers (Host.Watch, GET /conversations/{id}/events), and returns its result.
func runStreamed(ctx context.Context, h *agent.Host, opts []agent.RunOption) (*agent.Result, error) {
	res := &agent.Result{}
	var err error
	for _, e := range h.RunStream(ctx, append(opts, agent.ResultInto(res))...) {
		if e != nil {
			err = e
		}
	}
	return res, err
}

// stopped is the outcome of a run whose context ended: cancelled, timed out, or its worker is stopping.
func (m *Manager) stopped(ctx context.Context, job Job, err error) (Outcome, error) {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrCancelled):
		return Ended(job, StatusCancelled, "it was cancelled while it ran"), nil
	case errors.Is(cause, context.DeadlineExceeded):
		return Ended(job, StatusTimedOut, "its deadline passed while it ran"), nil
	default:
		return Outcome{}, fmt.Errorf("background run %s stopped: %w", job.ID, err)
	}
}

// planOf returns the plan of exit_plan_mode's arguments, or the arguments as they are.
func planOf(args json.RawMessage) string {
	var p struct {
		Plan string `json:"plan"`
	}
	if json.Unmarshal(args, &p) == nil && p.Plan != "" {
		return p.Plan
	}
	return string(args)
}
