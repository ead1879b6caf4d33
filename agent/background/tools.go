package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// The identities of the tools a Manager offers, for approval rules and settings. A start tool's identity is
// StartToolID and the delegate's name.
const (
	StartToolID  = "typeshift.background.start."
	StatusToolID = "typeshift.background.status"
	CancelToolID = "typeshift.background.cancel"
)

var startSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"task":{"type":"string","description":"The task for the agent, complete enough to be done without this conversation."},` +
	`"context":{"type":"string","description":"Facts from this conversation the agent needs, such as names, ids and what was tried."}` +
	`},"required":["task"],"additionalProperties":false}`)

var handleSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"handle":{"type":"string","description":"The handle the start tool returned."}` +
	`},"required":["handle"],"additionalProperties":false}`)

var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"handle":{"type":"string"},"request_id":{"type":"string"},"tool":{"type":"string"},"arguments":{},"mac":{"type":"string"}` +
	`},"required":["handle","request_id","tool","arguments","mac"],"additionalProperties":false}`)

// Tools offers each delegate as a background sub-agent: a tool start_<agent> per delegate, which starts it and
// returns a handle at once, and the tools background_status (state and result of a run), background_cancel and
// background_approval (the calls that stand for the runs' approval requests; only the Manager makes them). Offer
// the list to the caller's host, such as Config.Tools: []toolset.Source{m.Tools(billing)}, and register the caller
// with [Manager.Register]. A start needs a run with a conversation: the answers join it.
func (m *Manager) Tools(delegates ...*agent.Host) toolset.List {
	m.Register(delegates...)
	var l toolset.List
	for _, h := range delegates {
		if h != nil {
			l = append(l, m.startTool(h))
		}
	}
	approval := &toolset.Tool{
		Name: approvalToolName,
		Description: "Stands for an approval request of a background run; the user approves or rejects it. " +
			"Never call it yourself: its calls come from the background runs.",
		Schema:           approvalSchema,
		RequiresApproval: true,
		ID:               ApprovalToolID,
		Invoke:           m.invokeApproval,
		State:            &toolset.State{},
	}
	agent.OnRejected(approval, m.rejected)
	return append(l,
		&toolset.Tool{
			Name:        "background_status",
			Description: "Returns the status of a background run (queued, running, waiting, succeeded, failed, cancelled, timed_out) and, once it ended, its answer or why it did not finish.",
			Schema:      handleSchema,
			ReadOnly:    true,
			ID:          StatusToolID,
			Invoke:      m.invokeStatus,
		},
		&toolset.Tool{
			Name:        "background_cancel",
			Description: "Cancels a background run. You are told when it has stopped.",
			Schema:      handleSchema,
			ID:          CancelToolID,
			Invoke:      m.invokeCancel,
		},
		approval,
	)
}

// startTool is the tool that starts host in the background.
func (m *Manager) startTool(h *agent.Host) *toolset.Tool {
	name := "start_" + strings.ReplaceAll(toolset.SnakeCase(h.Name()), "-", "_")
	if !toolset.ValidName(name) {
		name = "start_agent"
	}
	return &toolset.Tool{
		Name: name,
		Description: fmt.Sprintf("Starts the %s agent on a task in the background and returns its handle at once. "+
			"Go on with your work: its answer joins this conversation when it is done. It does not see this conversation, so give it the whole task.", h.Name()),
		Schema:   startSchema,
		ReadOnly: true, // what the run may change it asks for itself, in the caller's mode
		ID:       StartToolID + h.Name(),
		Invoke:   func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) { return m.start(ctx, h, call) },
		// Delegate makes the tool loop hand the caller's run to the call, for its standing approvals.
		State: &toolset.State{Delegate: h},
	}
}

// start enqueues a job for h and returns its handle.
func (m *Manager) start(ctx context.Context, h *agent.Host, call *toolset.Call) (json.RawMessage, error) {
	var in struct {
		Task    string `json:"task"`
		Context string `json:"context"`
	}
	dec := json.NewDecoder(strings.NewReader(string(call.Args())))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the arguments cannot be used: %w", err)
	}
	if strings.TrimSpace(in.Task) == "" {
		return nil, errors.New(`"task" is empty: say what the agent should do`)
	}
	r := call.Run
	if r == nil || r.ConversationID == "" || r.SettingsID == "" {
		return nil, errors.New("a background run needs a conversation to report to; ask the agent directly instead")
	}
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= m.opts.MaxDepth {
		return nil, fmt.Errorf("not started: background runs are already nested %d deep, the limit; do the task yourself", m.opts.MaxDepth)
	}
	task := in.Task
	if in.Context != "" {
		task += "\n\nContext:\n" + in.Context
	}
	job := Job{
		ID: newJobID(), SettingsID: r.SettingsID, Agent: h.Name(), Task: task, Mode: r.Mode,
		Standing: agent.CallerApprovals(ctx),
		Caller:   Caller{Agent: r.Agent, ConversationID: r.ConversationID, CallID: call.ID},
		Trace:    traceCarrier(ctx),
		Depth:    depth + 1,
		Created:  time.Now(),
	}
	if m.opts.Deadline > 0 {
		job.Deadline = job.Created.Add(m.opts.Deadline)
	}
	limit := m.opts.Limit
	if m.opts.TenantLimit != nil {
		n, ok, err := m.opts.TenantLimit(ctx, r.SettingsID)
		switch {
		case err != nil:
			return nil, fmt.Errorf("not started: reading this user's limit: %w", err)
		case ok && n <= 0:
			return nil, errors.New("not started: this user may not start background runs")
		case ok:
			limit = n
		}
	}
	if err := m.queue.Enqueue(ctx, job, limit); err != nil {
		if errors.Is(err, ErrLimit) {
			return nil, fmt.Errorf("not started: this user already has %d background runs, the limit; wait for one to finish or cancel one", limit)
		}
		return nil, fmt.Errorf("not started: %w", err)
	}
	return json.Marshal(map[string]string{"handle": job.ID, "status": string(StatusQueued),
		"note": "Started in the background. Its answer will join this conversation; you need not wait for it."})
}

func decodeHandle(args json.RawMessage) (string, error) {
	var in struct {
		Handle string `json:"handle"`
	}
	if err := json.Unmarshal(args, &in); err != nil || in.Handle == "" {
		return "", errors.New(`the arguments need a "handle": the one the start tool returned`)
	}
	return in.Handle, nil
}

func (m *Manager) invokeStatus(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	id, err := decodeHandle(call.Args())
	if err != nil {
		return nil, err
	}
	st, err := m.queue.State(ctx, settingsOf(call), id)
	if err != nil {
		return nil, handleError(id, err)
	}
	out := map[string]any{"handle": id, "agent": st.Job.Agent, "status": st.Status}
	if st.Result != "" {
		out["result"] = st.Result
	}
	if st.Error != "" {
		out["error"] = st.Error
	}
	return json.Marshal(out)
}

func (m *Manager) invokeCancel(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	id, err := decodeHandle(call.Args())
	if err != nil {
		return nil, err
	}
	if err := m.queue.Cancel(ctx, settingsOf(call), id); err != nil {
		return nil, handleError(id, err)
	}
	return json.Marshal(map[string]string{"handle": id, "status": "cancelling", "note": "You are told in this conversation when it has stopped."})
}

// invokeApproval runs when the user approved a surfaced request: it passes the approval on.
func (m *Manager) invokeApproval(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	r := call.Run
	if r == nil {
		return nil, errForgedApproval
	}
	s, err := m.verify(r.SettingsID, r.ConversationID, call.Args())
	if err != nil {
		return nil, err
	}
	if err := m.answer(ctx, r.SettingsID, s, chat.ApprovalAnswer{RequestID: s.RequestID, Approved: true}); err != nil {
		return nil, handleError(s.Handle, err)
	}
	return json.Marshal(map[string]any{"handle": s.Handle, "approved": true, "note": "The background run goes on."})
}

// rejected passes a rejection (or a request left unanswered) on to the background run.
func (m *Manager) rejected(ctx context.Context, call *toolset.Call, reason string) {
	if call.Run == nil {
		return
	}
	run := call.Run
	s, err := m.verify(run.SettingsID, run.ConversationID, call.Arguments)
	if err != nil {
		return // not a request the Manager surfaced: nothing to pass on
	}
	_ = m.answer(ctx, run.SettingsID, s, chat.ApprovalAnswer{RequestID: s.RequestID, Approved: false, Reason: reason})
}

func settingsOf(call *toolset.Call) string {
	if call.Run == nil {
		return ""
	}
	return call.Run.SettingsID
}

func handleError(id string, err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("there is no background run %q", id)
	case errors.Is(err, ErrNotWaiting):
		return fmt.Errorf("background run %q no longer waits for this approval", id)
	}
	return err
}
