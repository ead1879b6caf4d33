package agenta2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// cancelTimeout bounds the tasks/cancel sent when a call ends before its remote task.
const cancelTimeout = 10 * time.Second

// outcome is a remote task as a call followed it, up to where the call stops: an end, or a turn that waits for
// input.
type outcome struct {
	taskID, contextID string
	state             a2a.TaskState
	status            *a2a.Message
	artifacts         []*a2a.Artifact
	text              int64 // the bytes of text received, bounded by MaxResponseBytes
	usage             chat.Usage
	cost              agent.Cost
	reported          bool
}

// stopped reports a task the call goes no further with.
func (o *outcome) stopped() bool {
	return o.state.Terminal() || o.state == a2a.TaskStateInputRequired || o.state == a2a.TaskStateAuthRequired
}

// exchange sends msg to the remote agent and follows the task it starts or continues until it stops: over a
// stream when the card says the agent streams, else by reading the task every Poll. A call whose context ends
// first cancels the remote task.
func (r *Remote) exchange(ctx context.Context, msg *a2a.Message) (*outcome, error) {
	o := &outcome{taskID: string(msg.TaskID), contextID: msg.ContextID}
	params := &a2a.MessageSendParams{Message: msg}
	var err error
	if r.card.Capabilities.Streaming {
		err = r.stream(ctx, params, o)
	} else {
		var res a2a.SendMessageResult
		res, err = r.client.SendMessage(ctx, params)
		if err == nil {
			err = o.apply(r, res)
		}
		if t, ok := res.(*a2a.Task); ok && err == nil && msg.TaskID != "" && t.Status.State == a2a.TaskStateInputRequired {
			// Not blocking, the answer to a question may come back before the agent has read it: read the task
			// again, after Poll, for its next state.
			o.state = a2a.TaskStateWorking
		}
	}
	for err == nil && !o.stopped() {
		// A task that does not stream, or a stream that ended before the task did: read the task until it stops.
		if o.taskID == "" {
			return nil, fmt.Errorf("%w: it answered neither a task nor a message", ErrRemoteProtocol)
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
			continue
		case <-time.After(r.opts.Poll):
		}
		var t *a2a.Task
		t, err = r.client.GetTask(ctx, &a2a.TaskQueryParams{ID: a2a.TaskID(o.taskID)})
		if err == nil {
			err = o.apply(r, t)
		}
	}
	if err != nil {
		cancelled := o.taskID != "" && !o.stopped()
		if cancelled {
			r.cancelTask(ctx, o.taskID)
		}
		if ctx.Err() != nil && !errors.Is(err, ErrRemoteProtocol) {
			err = context.Cause(ctx)
			if cancelled {
				err = fmt.Errorf("%w (the remote task was cancelled)", err)
			}
		}
		return nil, err
	}
	return o, nil
}

// stream follows a message/stream to the task's stop or the stream's end.
func (r *Remote) stream(ctx context.Context, params *a2a.MessageSendParams, o *outcome) error {
	first := true
	for ev, err := range r.client.SendStreamingMessage(ctx, params) {
		if err != nil {
			return err
		}
		if err := o.apply(r, ev); err != nil {
			return err
		}
		if t, ok := ev.(*a2a.Task); ok && first && params.Message.TaskID != "" && t.Status.State == a2a.TaskStateInputRequired {
			// A stream that continues a task may open with the task as it stood, still waiting for the answer
			// this message brings (the JavaScript SDK's server does): the answer is on its way.
			o.state = a2a.TaskStateWorking
		}
		first = false
		if o.stopped() {
			return nil
		}
	}
	return nil
}

// cancelTask asks the remote agent to cancel a task the call leaves, whatever became of the call's context.
func (r *Remote) cancelTask(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	_, _ = r.client.CancelTask(ctx, &a2a.TaskIDParams{ID: a2a.TaskID(id)})
}

// apply takes in one event of the task, or the task as read.
func (o *outcome) apply(r *Remote, ev a2a.Event) error {
	if ev == nil {
		return fmt.Errorf("%w: an empty event", ErrRemoteProtocol)
	}
	info := ev.TaskInfo()
	if m, ok := ev.(*a2a.Message); ok && info.TaskID == "" {
		// An agent that answers with a message and no task: the message is the answer.
		o.state = a2a.TaskStateCompleted
		o.status = m
		o.usageOf(m.Metadata)
		return o.bound(r, m.Parts)
	}
	switch {
	case info.TaskID == "":
		return fmt.Errorf("%w: an event names no task", ErrRemoteProtocol)
	case o.taskID == "":
		o.taskID, o.contextID = string(info.TaskID), info.ContextID
	case string(info.TaskID) != o.taskID:
		return fmt.Errorf("%w: an event of task %q came on the stream of task %q", ErrRemoteProtocol, info.TaskID, o.taskID)
	}
	switch e := ev.(type) {
	case *a2a.Task:
		o.state, o.status = e.Status.State, e.Status.Message
		if len(e.Artifacts) > 0 {
			o.artifacts, o.text = nil, 0
			for _, a := range e.Artifacts {
				if a == nil {
					continue
				}
				o.artifacts = append(o.artifacts, a)
				if err := o.bound(r, a.Parts); err != nil {
					return err
				}
			}
		}
		o.usageOf(e.Metadata)
		if e.Status.Message != nil {
			o.usageOf(e.Status.Message.Metadata)
		}
	case *a2a.TaskStatusUpdateEvent:
		o.state, o.status = e.Status.State, e.Status.Message
		o.usageOf(e.Metadata)
		if e.Status.Message != nil {
			o.usageOf(e.Status.Message.Metadata)
		}
	case *a2a.TaskArtifactUpdateEvent:
		if e.Artifact == nil {
			return fmt.Errorf("%w: an artifact update without an artifact", ErrRemoteProtocol)
		}
		o.usageOf(e.Metadata)
		if err := o.bound(r, e.Artifact.Parts); err != nil {
			return err
		}
		for i, a := range o.artifacts {
			if a.ID == e.Artifact.ID {
				if e.Append {
					a.Parts = appendParts(a.Parts, e.Artifact.Parts)
				} else {
					o.artifacts[i] = e.Artifact
				}
				return nil
			}
		}
		o.artifacts = append(o.artifacts, e.Artifact)
	case *a2a.Message:
		// A message within a task: the agent's words so far, kept as the status message.
		o.status = e
	}
	return nil
}

// appendParts appends the parts of an artifact's chunk to the artifact's, a text to the text before it.
func appendParts(to, parts a2a.ContentParts) a2a.ContentParts {
	for _, p := range parts {
		if t, ok := p.(a2a.TextPart); ok && len(to) > 0 {
			if last, ok := to[len(to)-1].(a2a.TextPart); ok {
				last.Text += t.Text
				to[len(to)-1] = last
				continue
			}
		}
		to = append(to, p)
	}
	return to
}

// bound counts the text of parts against MaxResponseBytes, so that a remote that streams without end is cut.
func (o *outcome) bound(r *Remote, parts a2a.ContentParts) error {
	for _, p := range parts {
		if t, ok := p.(a2a.TextPart); ok {
			o.text += int64(len(t.Text))
		}
	}
	if o.text > r.opts.MaxResponseBytes {
		return fmt.Errorf("%w: its answer is over %d bytes", ErrRemoteProtocol, r.opts.MaxResponseBytes)
	}
	return nil
}

// usageOf reads the usage and cost a remote reports in metadata; the last report of a call is the call's.
func (o *outcome) usageOf(md map[string]any) {
	if md == nil {
		return
	}
	if u, ok := md["usage"].(map[string]any); ok {
		o.usage = chat.Usage{
			InputTokens:  number(u, "inputTokens", "input_tokens", "promptTokens", "prompt_tokens"),
			OutputTokens: number(u, "outputTokens", "output_tokens", "completionTokens", "completion_tokens"),
			TotalTokens:  number(u, "totalTokens", "total_tokens"),
		}
		if o.usage.TotalTokens == 0 {
			o.usage.TotalTokens = o.usage.InputTokens + o.usage.OutputTokens
		}
		o.reported = true
	}
	if c, ok := md["cost"].(map[string]any); ok {
		if amount, ok := c["amount"].(float64); ok && amount >= 0 && amount < 1e9 {
			o.cost = agent.Cost{Nanos: int64(amount*1e9 + 0.5)}
			o.cost.Currency, _ = c["currency"].(string)
			o.reported = true
		}
	}
}

// number returns the first of keys that holds a non-negative number.
func number(m map[string]any, keys ...string) int64 {
	for _, k := range keys {
		if f, ok := m[k].(float64); ok && f >= 0 && f < 1e15 {
			return int64(f)
		}
	}
	return 0
}

// textOf joins the text parts of parts.
func textOf(parts a2a.ContentParts) string {
	var out []string
	for _, p := range parts {
		if t, ok := p.(a2a.TextPart); ok && strings.TrimSpace(t.Text) != "" {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n")
}

// answerText is the task's answer: its artifacts' text, or its status message's.
func (o *outcome) answerText() string {
	var out []string
	for _, a := range o.artifacts {
		if t := textOf(a.Parts); t != "" {
			out = append(out, t)
		}
	}
	if len(out) == 0 && o.status != nil {
		return textOf(o.status.Parts)
	}
	return strings.Join(out, "\n")
}

// conclude turns where the remote task stopped into the call's result: the answer, an error the model reads, or,
// for input-required, the question surfaced to the user.
func (r *Remote) conclude(ctx context.Context, call *toolset.Call, o *outcome, err error) (json.RawMessage, error) {
	if o != nil && o.reported {
		// What the remote spent counts in the local run, also when the call then failed.
		agent.ReportUsage(ctx, o.usage, o.cost)
		if r.opts.OnUsage != nil {
			r.opts.OnUsage(ctx, call, o.usage, o.cost)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("agent %s failed: %w", r.card.Name, err)
	}
	switch o.state {
	case a2a.TaskStateCompleted:
		return tooljson.AppendString(nil, o.answerText()), nil
	case a2a.TaskStateInputRequired:
		return r.surface(ctx, call, o)
	case a2a.TaskStateCanceled:
		return nil, fmt.Errorf("agent %s cancelled the task", r.card.Name)
	case a2a.TaskStateAuthRequired:
		return nil, fmt.Errorf("agent %s wants authentication the application did not give it: %s", r.card.Name, o.answerText())
	default:
		msg := o.answerText()
		if msg == "" {
			msg = "it gave no reason"
		}
		return nil, fmt.Errorf("agent %s did not do the task (%s): %s", r.card.Name, o.state, msg)
	}
}
