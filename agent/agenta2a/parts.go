package agenta2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// The keys of the data parts that carry approvals: the server's request in an input-required status message, and
// the client's answer in the message that continues the task.
const (
	DataApprovalRequest = "approvalRequest"
	DataApproval        = "approval"
)

// DataToolCall is the key of the data part of a working status update that a stream sends when the agent calls
// a tool: the call's id and the tool's name.
const DataToolCall = "toolCall"

// maxFiles bounds the files of one message; the body's size bounds their bytes.
const maxFiles = 32

// input is what a client's message asks of a run.
type input struct {
	text    string
	files   []chat.File
	answers []answer
}

// answer is one approval answer of a client, with the arguments it saw, if it names them.
type answer struct {
	chat.ApprovalAnswer
	arguments json.RawMessage
}

// answerJSON is the value of a DataApproval data part.
type answerJSON struct {
	RequestID string          `json:"requestId"`
	Approved  *bool           `json:"approved"`
	Reason    string          `json:"reason,omitempty"`
	Always    string          `json:"always,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// invalid is a message the protocol's invalid-params error answers.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", a2a.ErrInvalidParams, fmt.Sprintf(format, args...))
}

// inputOf reads a client's message.
func inputOf(m *a2a.Message) (input, error) {
	var in input
	if m == nil {
		return in, invalid("message is required")
	}
	if m.Role != a2a.MessageRoleUser {
		return in, invalid(`message.role must be "user"`)
	}
	if len(m.Parts) == 0 {
		return in, invalid("message.parts is empty")
	}
	var one [1]string // the usual message has one text part: its text needs no slice of its own
	text := one[:0]
	for i, p := range m.Parts {
		if p, ok := p.(a2a.TextPart); ok {
			if p.Text != "" {
				text = append(text, p.Text)
			}
			continue
		}
		at := "message.parts[" + strconv.Itoa(i) + "]"
		switch p := p.(type) {
		case a2a.FilePart:
			f, err := fileOf(at, p)
			if err != nil {
				return in, err
			}
			if len(in.files) == maxFiles {
				return in, invalid("at most %d files", maxFiles)
			}
			in.files = append(in.files, f)
		case a2a.DataPart:
			raw, ok := p.Data[DataApproval]
			if !ok || len(p.Data) != 1 {
				return in, fmt.Errorf("%w: %s: a data part holds one %q object", a2a.ErrUnsupportedContentType, at, DataApproval)
			}
			a, err := answerOf(at, raw)
			if err != nil {
				return in, err
			}
			for _, b := range in.answers {
				if b.RequestID == a.RequestID {
					return in, invalid("%s: request %q is answered twice", at, a.RequestID)
				}
			}
			in.answers = append(in.answers, a)
		default:
			return in, fmt.Errorf("%w: %s", a2a.ErrUnsupportedContentType, at)
		}
	}
	in.text = strings.Join(text, "\n")
	if in.text == "" && len(in.files) == 0 && len(in.answers) == 0 {
		return in, invalid("the message has no text, file or approval answer")
	}
	return in, nil
}

// answerOf reads an approval answer from a data part's value.
func answerOf(at string, raw any) (answer, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return answer{}, invalid("%s: %v", at, err)
	}
	var a answerJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return answer{}, invalid("%s.data.%s: %v", at, DataApproval, err)
	}
	if a.RequestID == "" {
		return answer{}, invalid("%s.data.%s.requestId is required", at, DataApproval)
	}
	if a.Approved == nil {
		return answer{}, invalid("%s.data.%s.approved is required", at, DataApproval)
	}
	scope, err := chat.ParseStanding(a.Always)
	if err != nil {
		return answer{}, invalid(`%s.data.%s.always must be "tool" or "arguments"`, at, DataApproval)
	}
	if scope != chat.Once && !*a.Approved {
		return answer{}, invalid("%s.data.%s.always: only an approval can be standing", at, DataApproval)
	}
	return answer{ApprovalAnswer: chat.ApprovalAnswer{RequestID: a.RequestID, Approved: *a.Approved, Reason: a.Reason, Always: scope},
		arguments: a.Arguments}, nil
}

// fileOf reads a file part: bytes in base64 with their media type, or an https URL the model's provider fetches.
// The server never fetches a URL itself.
func fileOf(at string, p a2a.FilePart) (chat.File, error) {
	switch c := p.File.(type) {
	case a2a.FileBytes:
		b, err := base64.StdEncoding.DecodeString(c.Bytes)
		if err != nil {
			return chat.File{}, invalid("%s.file.bytes must be standard base64", at)
		}
		if c.MimeType == "" {
			return chat.File{}, invalid("%s.file.mimeType is required with bytes", at)
		}
		return chat.File{MediaType: c.MimeType, Data: b, Name: c.Name}, nil
	case a2a.FileURI:
		if !strings.HasPrefix(c.URI, "https://") || strings.ContainsAny(c.URI, " \t\r\n") {
			return chat.File{}, invalid("%s.file.uri must be an https URL", at)
		}
		return chat.File{MediaType: c.MimeType, URL: c.URI, Name: c.Name}, nil
	}
	return chat.File{}, invalid("%s.file: give bytes or a uri", at)
}

// partsOf turns a message's text and files into A2A parts.
func partsOf(m chat.Message) []a2a.Part {
	out := make([]a2a.Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			out = append(out, a2a.TextPart{Text: p.Text})
		case chat.File:
			meta := a2a.FileMeta{MimeType: p.MediaType, Name: p.Name}
			if p.URL != "" {
				out = append(out, a2a.FilePart{File: a2a.FileURI{FileMeta: meta, URI: p.URL}})
			} else {
				out = append(out, a2a.FilePart{File: a2a.FileBytes{FileMeta: meta, Bytes: base64.StdEncoding.EncodeToString(p.Data)}})
			}
		}
	}
	return out
}

// requestPart is an approval request as a data part of an input-required status message.
func requestPart(r chat.ApprovalRequest) a2a.DataPart {
	var args any
	if err := json.Unmarshal(r.Call.Arguments, &args); err != nil {
		args = string(r.Call.Arguments)
	}
	return a2a.DataPart{Data: map[string]any{DataApprovalRequest: map[string]any{
		"requestId": r.ID, "callId": r.Call.ID, "tool": r.Call.Name, "toolId": r.ToolID, "arguments": args,
	}}}
}

// canonical is a JSON text with its keys sorted and no spaces, so that it reads the same whichever store kept it
// (Postgres keeps arguments as jsonb, which reformats them).
func canonical(b json.RawMessage) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}

// taskOf is the A2A task of a view, with at most historyLength messages of its history (nil: all of them).
func taskOf(t *taskView, historyLength *int) *a2a.Task {
	id := t.ref.id()
	task := &a2a.Task{ID: id, ContextID: t.ref.conversationID, Status: statusOf(t)}
	msgs := t.messages
	if historyLength != nil && *historyLength >= 0 && *historyLength < len(msgs) {
		msgs = msgs[len(msgs)-*historyLength:]
	}
	first := len(t.messages) - len(msgs)
	task.History = make([]*a2a.Message, len(msgs))
	for i, m := range msgs {
		task.History[i] = messageOf(t, first+i, m)
	}
	if len(msgs) == 0 {
		task.History = nil
	}
	if a := artifactOf(t, task.History); a != nil {
		task.Artifacts = []*a2a.Artifact{a}
	}
	return task
}

// messageOf is the i-th message of a task's history, its id made from the task's and its place, so that every
// instance gives it the same.
func messageOf(t *taskView, i int, m chat.Message) *a2a.Message {
	role := a2a.MessageRoleAgent
	if m.Role == chat.RoleUser {
		role = a2a.MessageRoleUser
	}
	return &a2a.Message{ID: string(t.ref.id()) + "/m" + strconv.Itoa(i), ContextID: t.ref.conversationID, TaskID: t.ref.id(),
		Role: role, Parts: partsOf(m)}
}

// answerArtifactID is the id of the artifact that holds the agent's answer.
const answerArtifactID a2a.ArtifactID = "answer"

// artifactOf is the agent's answer: the last message of the task's last run, when that run completed. For an
// agent with a typed answer, whose last message is the answer's JSON, the artifact holds the value as a data part
// after that text, so that a client reads the object without parsing text. history is the task's history as
// taskOf built it (nil when there is none): the artifact shares the parts of the answer's message in it.
func artifactOf(t *taskView, history []*a2a.Message) *a2a.Artifact {
	if t.state() != a2a.TaskStateCompleted {
		return nil
	}
	for i := len(t.lastRun) - 1; i >= 0; i-- {
		if m := t.lastRun[i]; m.Role == chat.RoleAssistant {
			var parts []a2a.Part
			if i == len(t.lastRun)-1 && len(history) > 0 && history[len(history)-1].Role == a2a.MessageRoleAgent {
				parts = slices.Clip(history[len(history)-1].Parts) // the last message of both: an append copies
			} else {
				parts = partsOf(m)
			}
			if p, ok := answerPart(t.answerType, m); ok {
				parts = append(parts, p)
			}
			return &a2a.Artifact{ID: answerArtifactID, Name: "answer", Parts: parts}
		}
	}
	return nil
}

// MetaAnswerType is the metadata key of a typed answer's data part in the answer artifact: the answer type's
// name, such as "Verdict".
const MetaAnswerType = "answerType"

// answerPart is the typed answer an agent's last message holds, as a data part whose data is the answer object;
// false for an agent that answers with text, or a message that is not the answer's JSON.
func answerPart(answerType string, m chat.Message) (a2a.DataPart, bool) {
	if answerType == "" {
		return a2a.DataPart{}, false
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(m.Text()), &v); err != nil || v == nil {
		return a2a.DataPart{}, false
	}
	return a2a.DataPart{Data: v, Metadata: map[string]any{MetaAnswerType: answerType}}, true
}

// statusOf is a task's status: its state, and the message that goes with it (the approval requests waiting for an
// answer, the agent's answer, or why the run failed).
func statusOf(t *taskView) a2a.TaskStatus {
	st := a2a.TaskStatus{State: t.state()}
	if !t.updated.IsZero() {
		ts := t.updated.UTC().Truncate(time.Millisecond)
		st.Timestamp = &ts
	}
	status := func(parts ...a2a.Part) *a2a.Message {
		return &a2a.Message{ID: string(t.ref.id()) + "/s" + strconv.Itoa(t.runs), ContextID: t.ref.conversationID, TaskID: t.ref.id(),
			Role: a2a.MessageRoleAgent, Parts: parts}
	}
	switch st.State {
	case a2a.TaskStateInputRequired:
		var parts []a2a.Part
		for _, r := range t.pending {
			parts = append(parts, a2a.TextPart{Text: "Approve or deny the call of " + r.Call.Name + " with " + canonical(r.Call.Arguments) +
				` (request ` + r.ID + `): answer with a data part {"` + DataApproval + `": {"requestId": "` + r.ID + `", "approved": true}}.`})
			parts = append(parts, requestPart(r))
		}
		st.Message = status(parts...)
	case a2a.TaskStateFailed:
		st.Message = status(a2a.TextPart{Text: "The run failed."})
	}
	// A completed task's answer is its artifact (and the last message of its history), not repeated here.
	return st
}
