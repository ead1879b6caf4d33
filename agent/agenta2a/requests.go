package agenta2a

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/typeshift-go/typeshift/agent"
)

// requests answers the protocol's methods for the SDK's JSON-RPC transport: every method reads and writes through
// the host and its store, as the authenticated tenant.
type requests struct{ h *Handler }

var _ a2asrv.RequestHandler = (*requests)(nil)

// OnGetTask answers tasks/get from the stored conversation.
func (q *requests) OnGetTask(ctx context.Context, p *a2a.TaskQueryParams) (*a2a.Task, error) {
	t, _, err := q.h.loadTask(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return taskOf(t, p.HistoryLength), nil
}

// OnCancelTask answers tasks/cancel: a task whose run goes on in this process is cancelled, and the task is
// returned as stored once the run has ended. A task that waits for input is not cancelled (its client denies the
// requests instead), and a run on another instance cannot be reached from here: both are not cancelable.
func (q *requests) OnCancelTask(ctx context.Context, p *a2a.TaskIDParams) (*a2a.Task, error) {
	t, last, err := q.h.loadTask(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	switch st := t.state(); {
	case st.Terminal() || !last:
		return nil, fmt.Errorf("%w: the task is %s", a2a.ErrTaskNotCancelable, st)
	case st == a2a.TaskStateInputRequired:
		return nil, fmt.Errorf("%w: the task waits for an answer to its approval requests: deny them instead", a2a.ErrTaskNotCancelable)
	}
	lr := q.h.live(liveKey{principal(ctx).SettingsID, t.ref.conversationID})
	if lr == nil {
		return nil, fmt.Errorf("%w: the task's run goes on on another instance", a2a.ErrTaskNotCancelable)
	}
	lr.cancel()
	select {
	case <-lr.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after, _, err := q.h.loadTask(ctx, p.ID)
	if errors.Is(err, a2a.ErrTaskNotFound) && t == lr.start {
		// Cancelled before its run stored anything: the task ends as it started, and nothing of it is kept.
		v := *t
		v.running, v.runError = false, context.Canceled.Error()
		return taskOf(&v, nil), nil
	}
	if err != nil {
		return nil, err
	}
	return taskOf(after, nil), nil
}

// OnSendMessage answers message/send: it runs the agent to the end of its turn (or, with blocking false, starts
// it) and returns the task.
func (q *requests) OnSendMessage(ctx context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	tr, err := q.h.prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	var history *int
	if p.Config != nil {
		history = p.Config.HistoryLength
		if p.Config.Blocking != nil && !*p.Config.Blocking {
			started := tr.lr.start
			go func() { _, _ = tr.run(nil) }() // a run that fails to start is logged
			return taskOf(started, history), nil
		}
	}
	v, err := tr.run(nil)
	if err != nil {
		return nil, err
	}
	return taskOf(v, history), nil
}

// OnSendMessageStream answers message/stream: the task, then its status and artifact updates as the run goes on,
// ending with its final status. A client that disconnects leaves the run to finish; tasks/resubscribe follows it
// again.
func (q *requests) OnSendMessageStream(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		tr, err := q.h.prepare(ctx, p)
		if err != nil {
			yield(nil, err)
			return
		}
		q.h.follow(ctx, tr, yield)
	}
}

// OnResubscribeToTask answers tasks/resubscribe: the task as stored, then, while its run goes on, the run's
// updates whichever instance runs it, and its final status.
func (q *requests) OnResubscribeToTask(ctx context.Context, p *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		t, _, err := q.h.loadTask(ctx, p.ID)
		if err != nil {
			yield(nil, err)
			return
		}
		q.h.resubscribe(ctx, t, yield)
	}
}

// OnGetTaskPushConfig: push notifications are not offered.
func (q *requests) OnGetTaskPushConfig(context.Context, *a2a.GetTaskPushConfigParams) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnListTaskPushConfig: push notifications are not offered.
func (q *requests) OnListTaskPushConfig(context.Context, *a2a.ListTaskPushConfigParams) ([]*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnSetTaskPushConfig: push notifications are not offered.
func (q *requests) OnSetTaskPushConfig(context.Context, *a2a.TaskPushConfig) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnDeleteTaskPushConfig: push notifications are not offered.
func (q *requests) OnDeleteTaskPushConfig(context.Context, *a2a.DeleteTaskPushConfigParams) error {
	return a2a.ErrPushNotificationNotSupported
}

// OnGetExtendedAgentCard: the public card is the whole card.
func (q *requests) OnGetExtendedAgentCard(context.Context) (*a2a.AgentCard, error) {
	return nil, a2a.ErrAuthenticatedExtendedCardNotConfigured
}

// internal logs an error clients must not read and returns the protocol's internal error.
func (h *Handler) internal(ctx context.Context, op string, err error) error {
	h.log.LogAttrs(ctx, slog.LevelError, "agenta2a: "+op, slog.String("error", err.Error()))
	return a2a.ErrInternalError
}

// runError maps the error of a run that did not start to the protocol's errors: what the client can fix is
// invalid params with the reason, the rest an internal error.
func (h *Handler) runError(ctx context.Context, err error) error {
	var ae *agent.ApprovalError
	switch {
	case errors.As(err, &ae):
		return fmt.Errorf("%w: approval answer for request %q: %s", a2a.ErrInvalidParams, ae.RequestID, ae.Reason)
	case isBusy(err):
		return fmt.Errorf("%w: the task's conversation has a run going on: follow it with tasks/resubscribe", a2a.ErrInvalidParams)
	case isRefused(err):
		return fmt.Errorf("%w: the tenant's budget refused the run", a2a.ErrInvalidRequest)
	}
	return h.internal(ctx, "starting a run", err)
}
