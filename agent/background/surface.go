package background

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// ApprovalToolID is the identity of the tool whose calls stand, in a caller's conversation, for the approval
// requests of its background runs. Its requests are made by the Manager alone; the user answers them as any
// request.
const ApprovalToolID = "typeshift.background.approval"

// approvalToolName is the tool's name as offered.
const approvalToolName = "background_approval"

// surfaced is what the arguments of a call of the approval tool hold: which background run and which of its
// requests the call stands for, what the request would run (for the user to read), and the MAC that binds it all
// to the caller's tenant and conversation.
type surfaced struct {
	Handle    string          `json:"handle"`
	RequestID string          `json:"request_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	MAC       string          `json:"mac"`
}

// mac binds a surfaced request to where it was surfaced.
func (m *Manager) mac(settingsID, conversationID string, s surfaced) string {
	h := hmac.New(sha256.New, m.key)
	for _, part := range []string{settingsID, conversationID, s.Handle, s.RequestID, s.Tool} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(canonical(s.Arguments))
	return hex.EncodeToString(h.Sum(nil))
}

// canonical returns JSON with its object keys sorted and no spaces, numbers as written: the MAC must hold for
// arguments a store gave back in another order or spacing (Postgres's jsonb sorts keys its own way).
func canonical(data json.RawMessage) []byte {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return data
	}
	out, err := json.Marshal(v) // map keys sorted
	if err != nil {
		return data
	}
	return out
}

// verify decodes the arguments of a call of the approval tool and checks that the Manager surfaced them in this
// tenant's conversation: a call the model made up, or one copied from another conversation, is refused.
func (m *Manager) verify(settingsID, conversationID string, args json.RawMessage) (surfaced, error) {
	var s surfaced
	if err := json.Unmarshal(args, &s); err != nil {
		return surfaced{}, fmt.Errorf("the arguments cannot be read: %w", err)
	}
	want := m.mac(settingsID, conversationID, s)
	if !hmac.Equal([]byte(want), []byte(s.MAC)) {
		return surfaced{}, errForgedApproval
	}
	return s, nil
}

var errForgedApproval = errors.New("this is not an approval request of a background run surfaced in this conversation; " +
	"only the user answers those, when they are shown")

// pendingRequest is one surfaced request in State.Pending.
type pendingRequest struct {
	// RequestID is the request's id in the caller's conversation, which the user's answer names.
	RequestID string `json:"request_id"`
	// SubRequestID is the request's id in the background run's conversation.
	SubRequestID string          `json:"sub_request_id"`
	Tool         string          `json:"tool"`
	Arguments    json.RawMessage `json:"arguments"`
}

// surface leaves each of the background run's pending requests open in the caller's conversation, as a request
// of the caller's host for a call of the approval tool, and returns the waiting outcome. A request can be left
// only while no run holds the conversation, so it waits for the caller's run to end.
func (m *Manager) surface(ctx context.Context, job Job, pending []chat.ApprovalRequest) (Outcome, error) {
	caller := m.host(job.Caller.Agent)
	if caller == nil {
		return Ended(job, StatusFailed, fmt.Sprintf("it needs approval to call %s, and the caller's agent %q is not registered with the background manager to ask for it",
			pending[0].Call.Name, job.Caller.Agent)), nil
	}
	var out []pendingRequest
	names := ""
	for _, p := range pending {
		s := surfaced{Handle: job.ID, RequestID: p.ID, Tool: p.Call.Name, Arguments: p.Call.Arguments}
		s.MAC = m.mac(job.SettingsID, job.Caller.ConversationID, s)
		args, err := json.Marshal(s)
		if err != nil {
			return Ended(job, StatusFailed, "its approval request cannot be shown: "+err.Error()), nil
		}
		sum := sha256.Sum256([]byte(job.ID + "\x00" + p.ID))
		call := chat.ToolCall{ID: "call_bg" + hex.EncodeToString(sum[:12]), Name: approvalToolName, Arguments: args}
		req, err := m.ask(ctx, caller, job, call)
		if err != nil {
			if ctx.Err() != nil {
				return m.stopped(ctx, job, err)
			}
			return Outcome{}, err
		}
		out = append(out, pendingRequest{RequestID: req.ID, SubRequestID: p.ID, Tool: p.Call.Name, Arguments: p.Call.Arguments})
		if names != "" {
			names += ", "
		}
		names += fmt.Sprintf("%s(%s) [request %s]", p.Call.Name, p.Call.Arguments, req.ID)
	}
	data, _ := json.Marshal(out)
	o := Outcome{Status: StatusWaiting, Pending: data}
	o.Report = reportOf(job, StatusWaiting, "It needs approval to call "+names+
		". The requests are pending in this conversation for the user to answer; the run goes on once they are answered.")
	return o, nil
}

// ask leaves call's request open in the caller's conversation, trying again while a run holds it.
func (m *Manager) ask(ctx context.Context, caller *agent.Host, job Job, call chat.ToolCall) (chat.ApprovalRequest, error) {
	wait := 20 * time.Millisecond
	for {
		req, err := caller.AskApproval(ctx, job.SettingsID, job.Caller.ConversationID, call, ApprovalToolID)
		if err == nil || !isBusy(err) {
			return req, err
		}
		select {
		case <-ctx.Done():
			return chat.ApprovalRequest{}, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, time.Second)
	}
}

// answer passes the user's answer to a surfaced request on to the background run. A run of the caller's
// conversation resolves every open request (answered, decided by a rule, or rejected as unanswered), so the
// answers to all of a waiting job's requests come in that one run: they are gathered, and the job is resumed once,
// with all of them. The requests are surfaced before the queue records the job as waiting, so an answer that comes
// at once waits for that.
func (m *Manager) answer(ctx context.Context, settingsID string, s surfaced, a chat.ApprovalAnswer) error {
	st, err := m.waiting(ctx, settingsID, s.Handle)
	if err != nil {
		return err
	}
	var pending []pendingRequest
	if err := json.Unmarshal(st.Pending, &pending); err != nil || !slices.ContainsFunc(pending, func(p pendingRequest) bool { return p.SubRequestID == s.RequestID }) {
		return fmt.Errorf("background run %q no longer waits for this approval: %w", s.Handle, ErrNotWaiting)
	}
	k := jobRef{settingsID, s.Handle, string(st.Pending)}
	m.mu.Lock()
	got := m.answers[k]
	if !slices.ContainsFunc(got, func(x chat.ApprovalAnswer) bool { return x.RequestID == a.RequestID }) {
		got = append(got, a)
	}
	complete := len(got) >= len(pending)
	if complete {
		delete(m.answers, k)
	} else {
		m.answers[k] = got
	}
	m.mu.Unlock()
	if !complete {
		return nil
	}
	data, err := json.Marshal(got)
	if err != nil {
		return err
	}
	return m.queue.Resume(ctx, settingsID, s.Handle, data)
}

// jobRef names one wait of a job (by the requests it waits for): its answers are gathered under it.
type jobRef struct{ settingsID, id, pending string }

// waiting returns the job's state once it waits, polling while it still runs (it surfaced its requests and its
// outcome is not recorded yet).
func (m *Manager) waiting(ctx context.Context, settingsID, id string) (State, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := m.queue.State(ctx, settingsID, id)
		switch {
		case err != nil:
			return State{}, err
		case st.Status == StatusWaiting:
			return st, nil
		case st.Status != StatusRunning || time.Now().After(deadline):
			return State{}, fmt.Errorf("background run %q is %s: %w", id, st.Status, ErrNotWaiting)
		}
		select {
		case <-ctx.Done():
			return State{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// isBusy reports a conversation that a run holds.
func isBusy(err error) bool { return errors.Is(err, storage.ErrConversationBusy) }
