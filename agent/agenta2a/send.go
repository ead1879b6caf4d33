package agenta2a

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// turn is one message of a client, checked and ready to run: the task it starts or goes on with, as it stood
// before, and the run's options.
type turn struct {
	h          *Handler
	settingsID string
	ref        taskRef
	before     *taskView // nil for a new task
	in         input
	opts       []agent.RunOption
	rctx       context.Context
	lr         *liveRun
	key        liveKey
}

// prepare checks a client's message against the stored conversation and decides the task it belongs to: the task
// it names (which must be waiting for the answers it brings), a new task in the context it names, or a new
// conversation. It takes the conversation's run slot in this process; the run releases it.
func (h *Handler) prepare(ctx context.Context, p *a2a.MessageSendParams) (*turn, error) {
	if p == nil || p.Message == nil {
		return nil, invalid("params.message is required")
	}
	in, err := inputOf(p.Message)
	if err != nil {
		return nil, err
	}
	m := p.Message
	t := &turn{h: h, settingsID: principal(ctx).SettingsID, in: in}
	switch {
	case m.TaskID != "":
		ref, err := parseTaskID(m.TaskID)
		if err != nil {
			return nil, err
		}
		if m.ContextID != "" && m.ContextID != ref.conversationID {
			return nil, invalid("message.contextId is not the context of task %q", m.TaskID)
		}
		tasks, _, err := h.loadTasks(ctx, t.settingsID, ref.conversationID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, fmt.Errorf("%w: %q", a2a.ErrTaskNotFound, m.TaskID)
		}
		if err != nil {
			return nil, h.internal(ctx, "loading a task", err)
		}
		view, last, err := find(tasks, ref)
		if err != nil {
			return nil, err
		}
		switch st := view.state(); {
		case st.Terminal() || !last:
			return nil, invalid("task %q is %s: send a new message in its context (contextId %q) without a taskId", m.TaskID, st, ref.conversationID)
		case st == a2a.TaskStateWorking:
			return nil, invalid("task %q is working: follow it with tasks/resubscribe", m.TaskID)
		}
		if len(in.answers) == 0 {
			return nil, invalid("task %q waits for answers to its approval requests: send a data part {%q: {...}} for each", m.TaskID, DataApproval)
		}
		if err := checkAnswers(view, in.answers); err != nil {
			return nil, err
		}
		t.ref, t.before = ref, view
	case m.ContextID != "":
		if err := checkConversationID(m.ContextID); err != nil {
			return nil, invalid("message.contextId: %v", err)
		}
		if len(in.answers) > 0 {
			return nil, invalid("a new task has no requests to answer: send answers with the taskId of the task that asked")
		}
		t.ref = taskRef{conversationID: m.ContextID}
		tasks, lastSeq, err := h.loadTasks(ctx, t.settingsID, m.ContextID)
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return nil, h.internal(ctx, "loading a conversation", err)
		case len(tasks) > 0:
			switch prev := tasks[len(tasks)-1]; prev.state() {
			case a2a.TaskStateInputRequired:
				return nil, invalid("task %q of this context waits for answers to its approval requests: answer them, with its taskId, first", prev.ref.id())
			case a2a.TaskStateWorking:
				return nil, invalid("task %q of this context is working: follow it with tasks/resubscribe", prev.ref.id())
			}
			// The next run's start is the entry after the last: the new task's id names it.
			t.ref.from = lastSeq + 1
		}
	default:
		if len(in.answers) > 0 {
			return nil, invalid("a new task has no requests to answer: send answers with the taskId of the task that asked")
		}
		t.ref = taskRef{conversationID: newID()}
	}
	t.opts = make([]agent.RunOption, 0, 4+len(in.answers))
	t.opts = append(t.opts, agent.SettingsID(t.settingsID), agent.Conversation(t.ref.conversationID))
	if in.text != "" {
		t.opts = append(t.opts, agent.Text(in.text))
	}
	if len(in.files) > 0 {
		t.opts = append(t.opts, agent.Files(in.files...))
	}
	for _, a := range in.answers {
		t.opts = append(t.opts, agent.Answer(a.ApprovalAnswer))
	}
	t.key = liveKey{t.settingsID, t.ref.conversationID}
	var ok bool
	t.rctx, t.lr, ok = h.runContext(ctx, t.key, t.view())
	if !ok {
		return nil, invalid("the conversation has a run going on: follow it with tasks/resubscribe")
	}
	return t, nil
}

// checkAnswers holds each answer to a request the task waits for, and to the arguments the client was shown: an
// answer to another task's request, to a request already answered, or naming other arguments runs nothing. The
// host checks the answers again against the stored conversation when the run claims it.
func checkAnswers(view *taskView, answers []answer) error {
	for _, a := range answers {
		i := slices.IndexFunc(view.pending, func(r chat.ApprovalRequest) bool { return r.ID == a.RequestID })
		if i < 0 {
			return invalid("approval answer for request %q: task %q has no such open request", a.RequestID, view.ref.id())
		}
		if a.arguments != nil && !sameJSON(a.arguments, view.pending[i].Call.Arguments) {
			return invalid("approval answer for request %q: the arguments are not those of the request", a.RequestID)
		}
	}
	return nil
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// view is the task as it stands when its run starts: the task before, its new input, and a run going on.
func (t *turn) view() *taskView {
	v := taskView{ref: t.ref}
	if t.before != nil {
		v = *t.before
	}
	v.messages = slices.Clip(v.messages)
	v.runs++
	v.running, v.lastRun, v.pending, v.runError = true, nil, nil, ""
	if t.in.text != "" || len(t.in.files) > 0 {
		v.add(chat.UserFile(t.in.text, t.in.files...))
	}
	v.updated = time.Now()
	return &v
}

// run runs the turn to its end, streaming its updates to onUpdate when it is not nil, and returns the task as it
// ended, which is what the store now holds; or the error of a run that did not start.
func (t *turn) run(onUpdate func(chat.Update)) (*taskView, error) {
	defer t.h.runEnded(t.key, t.lr)
	v := *t.lr.start // others read the start while the run goes on: the end is a copy
	v.messages = slices.Clip(v.messages)
	v.lastRun = slices.Clip(v.lastRun)
	var (
		res     *agent.Result
		err     error
		started bool
	)
	if onUpdate == nil {
		res, err = t.h.host.Run(t.rctx, t.opts...)
	} else {
		res, started, err = t.stream(onUpdate)
	}
	if err != nil && !started && res.Messages == nil {
		if t.rctx.Err() != nil && errors.Is(err, context.Canceled) {
			// Cancelled (tasks/cancel) before the run stored anything: the task ends there, and nothing is kept.
			v.running, v.runError = false, err.Error()
			return &v, nil
		}
		return nil, t.h.runError(t.rctx, err)
	}
	v.add(res.New...)
	v.running, v.pending = false, res.Pending
	v.answerType = t.h.answerType()
	if err != nil {
		v.runError = err.Error()
		t.h.log.LogAttrs(t.rctx, slog.LevelWarn, "agenta2a: run failed", slog.String("conversation_id", t.ref.conversationID),
			slog.String("error", err.Error()))
	}
	v.updated = time.Now()
	return &v, nil
}

// stream runs the turn streaming its updates to onUpdate, and returns its result, whether it sent an update, and
// the error it ended with. It is apart from run so that a turn that is not streamed allocates no result of its own.
func (t *turn) stream(onUpdate func(chat.Update)) (*agent.Result, bool, error) {
	res := new(agent.Result)
	started := false
	for u, err := range t.h.host.RunStream(t.rctx, append(t.opts, agent.ResultInto(res))...) {
		if err != nil {
			return res, started, err
		}
		started = true
		onUpdate(u)
	}
	return res, started, nil
}

// newID is a new conversation's id: random, so that no client can guess another's.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isBusy reports a conversation another run holds.
func isBusy(err error) bool { return errors.Is(err, storage.ErrConversationBusy) }

// isRefused reports a run that its budget refused.
func isRefused(err error) bool {
	var be *storage.BudgetExceededError
	return errors.As(err, &be)
}
