package agenta2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// A task id names a conversation and one exchange in it. The first task of a conversation has the conversation's
// id; a later one the conversation's id, taskSep, and the sequence number of the first entry of its first run (its
// run start), so that the id says where in the stored conversation the task begins.
const taskSep = "~"

// taskRef is a task id, parsed.
type taskRef struct {
	conversationID string
	// from is the sequence number of the task's first run start; zero for the conversation's first task.
	from int64
}

func (r taskRef) id() a2a.TaskID {
	if r.from == 0 {
		return a2a.TaskID(r.conversationID)
	}
	return a2a.TaskID(r.conversationID + taskSep + strconv.FormatInt(r.from, 10))
}

// parseTaskID reads a task id; one that could not be the server's is a task not found.
func parseTaskID(id a2a.TaskID) (taskRef, error) {
	s := string(id)
	ref := taskRef{conversationID: s}
	if i := strings.LastIndex(s, taskSep); i >= 0 {
		n, err := strconv.ParseInt(s[i+len(taskSep):], 10, 64)
		if err != nil || n <= 0 {
			return ref, fmt.Errorf("%w: %q", a2a.ErrTaskNotFound, s)
		}
		ref = taskRef{conversationID: s[:i], from: n}
	}
	if err := checkConversationID(ref.conversationID); err != nil {
		return ref, fmt.Errorf("%w: %q", a2a.ErrTaskNotFound, s)
	}
	return ref, nil
}

// checkConversationID checks a context id a client gave: a conversation id of the store, without taskSep.
func checkConversationID(id string) error {
	if strings.Contains(id, taskSep) {
		return errors.New("a context id must not contain " + taskSep)
	}
	return storage.CheckIDs("x", id)
}

// taskView is a task as the stored conversation holds it.
type taskView struct {
	ref taskRef
	// runs counts the task's runs; running reports that its last run has no end stored.
	runs    int
	running bool
	// pending are the approval requests its last run ended with; runError why it failed, if it did.
	pending  []chat.ApprovalRequest
	runError string
	// messages are the user's input and the agent's messages, in order; lastRun those of its last run.
	messages []chat.Message
	lastRun  []chat.Message
	updated  time.Time
	// answerType names the agent's answer type when it declares one: the answer artifact then holds the answer's
	// value as a data part too.
	answerType string
}

// runEndData is the part of a run end's stored data a task's state needs.
type runEndData struct {
	Pending int    `json:"pending"`
	Error   string `json:"error"`
}

// tasksOf splits a conversation's entries into its tasks: a run whose input comes while no approval request is
// open begins a task; a run that answers requests, with or without more input, goes on with the task that asked.
func tasksOf(conversationID string, entries []storage.Entry) ([]*taskView, error) {
	var (
		tasks    []*taskView
		cur      *taskView
		open     int   // approval requests left open by the last run that ended
		runStart int64 // the current run's start, until it is given to a task
		runFirst bool  // the current run has not yet been given to a task
	)
	for _, e := range entries {
		switch e.Type {
		case storage.EntryRunStart:
			runStart, runFirst = e.Seq, true
		case storage.EntryInput:
			msgs, err := chat.UnmarshalMessages(e.Data)
			if err != nil {
				return nil, fmt.Errorf("reading entry %d: %w", e.Seq, err)
			}
			if runFirst && (open == 0 || cur == nil) {
				ref := taskRef{conversationID: conversationID, from: runStart}
				if len(tasks) == 0 {
					ref.from = 0
				}
				cur = &taskView{ref: ref}
				tasks = append(tasks, cur)
			}
			if cur == nil {
				continue
			}
			if runFirst {
				cur.runs++
				cur.running, cur.lastRun, cur.pending, cur.runError = true, nil, nil, ""
				runFirst = false
			}
			cur.add(msgs...)
		case storage.EntryResponse, storage.EntryApprovalRequests, storage.EntryApprovalAnswers, storage.EntryToolResults:
			if cur == nil {
				continue
			}
			if runFirst { // a run that answers requests without input
				cur.runs++
				cur.running, cur.lastRun, cur.pending, cur.runError = true, nil, nil, ""
				runFirst = false
			}
			if e.Type == storage.EntryApprovalAnswers || e.Type == storage.EntryToolResults {
				continue
			}
			msgs, err := chat.UnmarshalMessages(e.Data)
			if err != nil {
				return nil, fmt.Errorf("reading entry %d: %w", e.Seq, err)
			}
			if e.Type == storage.EntryApprovalRequests {
				for _, m := range msgs {
					for _, p := range m.Parts {
						if r, ok := p.(chat.ApprovalRequest); ok {
							cur.pending = append(cur.pending, r)
						}
					}
				}
				continue
			}
			cur.add(msgs...)
		case storage.EntryRunEnd:
			var d runEndData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return nil, fmt.Errorf("reading entry %d: %w", e.Seq, err)
			}
			open = d.Pending
			if cur != nil && !runFirst {
				cur.running, cur.runError = false, d.Error
				if d.Pending == 0 {
					cur.pending = nil
				}
			}
			runFirst = false
		}
		if cur != nil {
			cur.updated = e.Time
		}
	}
	return tasks, nil
}

// add keeps the messages a client is shown: the user's and the agent's text and files, not tool calls and results.
func (t *taskView) add(msgs ...chat.Message) {
	for _, m := range msgs {
		if m.Role != chat.RoleUser && m.Role != chat.RoleAssistant {
			continue
		}
		parts := shown(m.Parts)
		if len(parts) == 0 {
			continue
		}
		m := chat.Message{Role: m.Role, AuthorName: m.AuthorName, Parts: parts}
		t.messages = append(t.messages, m)
		t.lastRun = append(t.lastRun, m)
	}
}

// shown returns the text and files of parts: parts itself when it holds nothing else, as an answer of text
// does, so that a turn copies no parts.
func shown(parts []chat.Part) []chat.Part {
	keep := func(p chat.Part) bool {
		switch p := p.(type) {
		case chat.Text:
			return p.Text != ""
		case chat.File:
			return true
		}
		return false
	}
	i := 0
	for i < len(parts) && keep(parts[i]) {
		i++
	}
	if i == len(parts) {
		return slices.Clip(parts)
	}
	out := make([]chat.Part, 0, len(parts))
	out = append(out, parts[:i]...)
	for _, p := range parts[i+1:] {
		if keep(p) {
			out = append(out, p) // the interface value itself: no new box
		}
	}
	return out
}

// state is the task's A2A state.
func (t *taskView) state() a2a.TaskState {
	switch {
	case t.running:
		return a2a.TaskStateWorking
	case t.runError != "" && strings.Contains(t.runError, context.Canceled.Error()):
		return a2a.TaskStateCanceled
	case t.runError != "":
		return a2a.TaskStateFailed
	case len(t.pending) > 0:
		return a2a.TaskStateInputRequired
	}
	return a2a.TaskStateCompleted
}

// find returns the task ref names, and whether it is the conversation's last.
func find(tasks []*taskView, ref taskRef) (*taskView, bool, error) {
	for i, t := range tasks {
		if t.ref == ref {
			return t, i == len(tasks)-1, nil
		}
	}
	return nil, false, fmt.Errorf("%w: %q", a2a.ErrTaskNotFound, ref.id())
}

// answerType is the name of the agent's answer type, or "" for an agent that answers with text.
func (h *Handler) answerType() string {
	ans, _ := h.host.AnswerType()
	return ans.Name
}

// loadTasks reads the tenant's conversation and splits it into tasks; another tenant's conversation, or none, is
// a task not found.
func (h *Handler) loadTasks(ctx context.Context, settingsID, conversationID string) ([]*taskView, int64, error) {
	entries, err := h.opts.Store.LoadAll(ctx, settingsID, conversationID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && len(entries) == 0 {
		return nil, 0, storage.ErrNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	tasks, err := tasksOf(conversationID, entries)
	if err != nil {
		return nil, 0, err
	}
	for _, t := range tasks {
		t.answerType = h.answerType()
	}
	return tasks, entries[len(entries)-1].Seq, nil
}

// loadTask reads one task of the tenant.
func (h *Handler) loadTask(ctx context.Context, id a2a.TaskID) (*taskView, bool, error) {
	ref, err := parseTaskID(id)
	if err != nil {
		return nil, false, err
	}
	settingsID := principal(ctx).SettingsID
	tasks, _, err := h.loadTasks(ctx, settingsID, ref.conversationID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, false, h.internal(ctx, "loading a task", err)
	}
	t, last, err := find(tasks, ref)
	if err != nil {
		// A run of this process that has not stored its start yet: its task is as it started.
		if lr := h.live(liveKey{settingsID, ref.conversationID}); lr != nil && lr.start != nil && lr.start.ref == ref {
			return lr.start, true, nil
		}
	}
	return t, last, err
}
