package agenta2a

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

var answerSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"task_id":{"type":"string"},"context_id":{"type":"string"},"question":{"type":"string"},"requests":{"type":"array"},"mac":{"type":"string"}` +
	`},"required":["task_id","context_id","question","mac"],"additionalProperties":false}`)

// question is what the arguments of a call of a Remote's answer tool hold: the remote task that waits, what it
// asks (its status message's text, and the approval requests it holds as data parts, if any), and the MAC that
// binds it all to the tenant's conversation it was surfaced in.
type question struct {
	TaskID    string          `json:"task_id"`
	ContextID string          `json:"context_id"`
	Question  string          `json:"question"`
	Requests  []remoteRequest `json:"requests,omitempty"`
	MAC       string          `json:"mac"`
}

// remoteRequest is an approval request of the remote agent (a data part DataApprovalRequest, as this package
// serves them).
type remoteRequest struct {
	RequestID string          `json:"request_id"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// mac binds q to the conversation of the tenant it was surfaced in, and to this remote agent.
func (r *Remote) mac(settingsID, conversationID string, q question) string {
	m := hmac.New(sha256.New, r.key)
	for _, s := range []string{settingsID, conversationID, r.card.Name, q.TaskID, q.ContextID, q.Question} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	for _, req := range q.Requests {
		for _, s := range []string{req.RequestID, req.Tool} {
			m.Write([]byte(s))
			m.Write([]byte{0})
		}
		m.Write(canonicalJSON(req.Arguments))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

// canonicalJSON returns data with sorted keys and no spaces, so that the MAC holds for arguments a store gave back
// in another order or spacing.
func canonicalJSON(data json.RawMessage) []byte {
	if len(data) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return data
	}
	out, err := json.Marshal(v)
	if err != nil {
		return data
	}
	return out
}

// questionOf reads what an input-required status asks.
func questionOf(o *outcome) question {
	q := question{TaskID: o.taskID, ContextID: o.contextID}
	if o.status == nil {
		return q
	}
	q.Question = textOf(o.status.Parts)
	for _, p := range o.status.Parts {
		d, ok := p.(a2a.DataPart)
		if !ok {
			continue
		}
		raw, ok := d.Data[DataApprovalRequest].(map[string]any)
		if !ok {
			continue
		}
		id, _ := raw["requestId"].(string)
		tool, _ := raw["tool"].(string)
		args, _ := json.Marshal(raw["arguments"])
		if id != "" {
			q.Requests = append(q.Requests, remoteRequest{RequestID: id, Tool: tool, Arguments: args})
		}
	}
	if q.Question == "" {
		q.Question = "The agent needs input to go on."
	}
	return q
}

// surface puts the remote's input-required turn to the local user: as an approval request, in the run's
// conversation, of a call of the answer tool, once the run that made the call has released the conversation.
// The model reads that the question waits for the user.
func (r *Remote) surface(ctx context.Context, call *toolset.Call, o *outcome) (json.RawMessage, error) {
	q := questionOf(o)
	run := call.Run
	var h *agent.Host
	if run != nil {
		h = r.host(run.Agent)
	}
	if run == nil || run.ConversationID == "" || run.SettingsID == "" || h == nil {
		r.cancelTask(ctx, o.taskID)
		why := "this run has no conversation to ask the user in"
		if run != nil && run.ConversationID != "" && h == nil {
			why = fmt.Sprintf("agent %s is not registered with the remote agent (Remote.Register) to ask the user", run.Agent)
		}
		return nil, fmt.Errorf("agent %s asked for input it cannot be given: %s. It asked: %s", r.card.Name, why, q.Question)
	}
	q.MAC = r.mac(run.SettingsID, run.ConversationID, q)
	args, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("agent %s asked for input that cannot be shown: %w", r.card.Name, err)
	}
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	local := chat.ToolCall{ID: "call_a2a" + hex.EncodeToString(id), Name: r.answer, Arguments: args}
	settingsID, conversationID := run.SettingsID, run.ConversationID
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.Timeout)
	r.pending.Add(1)
	go func() {
		defer r.pending.Done()
		defer cancel()
		if _, err := askWhenFree(actx, h, settingsID, conversationID, local, RemoteAnswerToolID+r.card.Name); err != nil {
			r.cancelTask(actx, q.TaskID)
		}
	}()
	text := fmt.Sprintf("Agent %s waits for the user's answer before it goes on: %s. The question is put to the user "+
		"as an approval request in this conversation; the agent's answer comes once the user has answered it. "+
		"Tell the user so; do not ask the agent again.", r.card.Name, q.Question)
	return tooljson.AppendString(nil, text), nil
}

// askWhenFree leaves call's request open in the conversation, trying again while a run (the one that made the
// call, first) holds it.
func askWhenFree(ctx context.Context, h *agent.Host, settingsID, conversationID string, call chat.ToolCall, toolID string) (chat.ApprovalRequest, error) {
	wait := 5 * time.Millisecond
	for {
		req, err := h.AskApproval(ctx, settingsID, conversationID, call, toolID)
		if err == nil || !errors.Is(err, storage.ErrConversationBusy) {
			return req, err
		}
		select {
		case <-ctx.Done():
			return chat.ApprovalRequest{}, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 500*time.Millisecond)
	}
}

// WaitSurfaced waits until the input-required turns r is surfacing are open in their conversations, or ctx ends:
// for tests and for a program that stops.
func (r *Remote) WaitSurfaced(ctx context.Context) error {
	done := make(chan struct{})
	go func() { r.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errForgedQuestion = errors.New("this is not a question of the remote agent surfaced in this conversation; only the user answers those, when they are shown")

// verify decodes a call of the answer tool and checks that r surfaced it in this tenant's conversation.
func (r *Remote) verify(call *toolset.Call) (question, error) {
	var q question
	if err := json.Unmarshal(call.Args(), &q); err != nil {
		return q, fmt.Errorf("the arguments cannot be read: %w", err)
	}
	run := call.Run
	if run == nil {
		return q, errForgedQuestion
	}
	if !hmac.Equal([]byte(r.mac(run.SettingsID, run.ConversationID, q)), []byte(q.MAC)) {
		return q, errForgedQuestion
	}
	return q, nil
}

// reply is the message that answers q: a DataApproval part per approval request, or, for a question without
// any, a text and a DataApproval part without a request id.
func reply(q question, approved bool, reason string) *a2a.Message {
	var parts a2a.ContentParts
	answer := func(id string) map[string]any {
		a := map[string]any{"approved": approved}
		if id != "" {
			a["requestId"] = id
		}
		if !approved && reason != "" {
			a["reason"] = reason
		}
		return map[string]any{DataApproval: a}
	}
	if len(q.Requests) == 0 {
		text := "Approved."
		if !approved {
			text = "Denied."
			if reason != "" {
				text = "Denied: " + reason
			}
		}
		parts = append(parts, a2a.TextPart{Text: text}, a2a.DataPart{Data: answer("")})
	}
	for _, req := range q.Requests {
		parts = append(parts, a2a.DataPart{Data: answer(req.RequestID)})
	}
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	m.TaskID, m.ContextID = a2a.TaskID(q.TaskID), q.ContextID
	return m
}

// invokeAnswer runs an approved call of the answer tool: it passes the approval on to the remote task and returns
// what the task does next.
func (r *Remote) invokeAnswer(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	q, err := r.verify(call)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	out, err := r.exchange(ctx, reply(q, true, ""))
	return r.conclude(ctx, call, out, err)
}

// rejected passes a rejection of a surfaced question on to the remote task, and leaves the task if it asks
// again.
func (r *Remote) rejected(ctx context.Context, call *toolset.Call, reason string) {
	q, err := r.verify(call)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.Timeout)
	defer cancel()
	out, err := r.exchange(ctx, reply(q, false, reason))
	if err == nil && !out.state.Terminal() {
		r.cancelTask(ctx, out.taskID)
	}
}
