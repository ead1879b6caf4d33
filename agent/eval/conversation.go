package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// ErrNoTurn is wrapped by the error of [FromMessages] for a conversation without a turn to make a case of: no
// user's message with text, or none the model answered (its run failed, or is still going).
var ErrNoTurn = errors.New("eval: the conversation has no turn to make a case of")

// referenceThreshold is the response_match_score a case made from a conversation asks for by default: ADK's
// default for the same metric, since a model rarely repeats an answer word for word.
const referenceThreshold = 0.8

// FromMessages makes a case of a conversation's last turn, for a person to edit and keep: the user's last
// message with text is the input and the messages before it the history; the tool calls the model made after it
// are the trajectory (exact, with their arguments), the calls that waited for approval the approvals (answered
// as the conversation answered them, when it went on), and the final answer the reference answer, to be matched
// at 0.8 (see [Answer.Reference]). It fails with [ErrNoTurn] when there is no such message, or when no message
// of the model follows it.
func FromMessages(msgs []chat.Message) (*Case, error) {
	at := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleUser && msgs[i].Text() != "" {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%w: no user message with text", ErrNoTurn)
	}
	if !slices.ContainsFunc(msgs[at+1:], func(m chat.Message) bool { return m.Role == chat.RoleAssistant }) {
		return nil, fmt.Errorf("%w: the model has not answered the user's last message", ErrNoTurn)
	}
	c := &Case{History: msgs[:at:at]}
	if len(c.History) == 0 {
		c.History = nil
	}
	if onlyText(msgs[at]) {
		c.Text = msgs[at].Text()
	} else {
		c.Messages = []chat.Message{msgs[at]}
	}
	c.Description = "Made from a conversation: " + clip(msgs[at].Text())

	traj := &Trajectory{Match: MatchExact, Calls: []Call{}}
	approvals := []string{}       // none may wait, unless the conversation waited
	approved := map[string]bool{} // call id -> ran without error
	asked := map[string]bool{}
	seen := map[string]bool{}
	answer := ""
	for _, m := range msgs[at+1:] {
		for _, p := range m.Parts {
			var call chat.ToolCall
			switch p := p.(type) {
			case chat.ToolCall:
				call = p
			case chat.ApprovalRequest:
				call = p.Call
				if !asked[call.ID] {
					asked[call.ID] = true
					approvals = append(approvals, call.Name)
				}
			case chat.ToolResult:
				approved[p.CallID] = p.Error == ""
				continue
			default:
				continue
			}
			if call.ID != "" && seen[call.ID] {
				continue
			}
			seen[call.ID] = true
			traj.Calls = append(traj.Calls, expectedCall(call))
		}
		if m.Role == chat.RoleAssistant && m.Text() != "" {
			answer, c.answeredBy = m.Text(), m.AuthorName
		}
	}
	c.Expect.Trajectory = traj
	c.Expect.Approvals = &approvals
	if len(approvals) > 0 {
		answered, yes := false, true
		for id := range asked {
			if ok, has := approved[id]; has {
				answered = true
				yes = yes && ok
			}
		}
		if answered {
			c.Approve = &yes
		}
	}
	if answer != "" {
		c.Expect.Answer = &Answer{Reference: answer}
		c.Thresholds = map[string]float64{ScoreAnswer: referenceThreshold}
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCase, err)
	}
	return c, nil
}

// FromConversation makes a case (see [FromEntries]) of the tenant's stored conversation, read through host
// (agent.Host.LoadEntries): another tenant's conversation is not found. When host's agent gave the answer and
// declares an answer type, the case checks the answer's fields instead of its words (see
// [Case.ExpectAnswerFields]).
func FromConversation(ctx context.Context, host *agent.Host, settingsID, conversationID string) (*Case, error) {
	entries, err := host.LoadEntries(ctx, settingsID, conversationID)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	c, err := FromEntries(entries)
	if err != nil {
		return nil, err
	}
	c.SettingsID = settingsID
	if _, typed := host.AnswerType(); typed && c.AnsweredBy() == host.Name() {
		// An answer that is not JSON was never accepted: its words stay the check.
		_ = c.ExpectAnswerFields()
	}
	return c, nil
}

// AnsweredBy names the agent whose message holds the reference answer of a case made from a conversation (see
// [FromMessages]), as the message's author name says: after a handoff, the agent the conversation went to. It
// is "" for a case read from a file, or a message without an author. A caller that knows the agent's answer
// type checks the answer's fields with [Case.ExpectAnswerFields].
func (c *Case) AnsweredBy() string { return c.answeredBy }

// FromEntries makes a case (see [FromMessages]) of a conversation's stored entries, as a store's LoadAll returns
// them or the HTTP API's GET /conversations/{id} lists them: the messages of its input, responses, tool results,
// steering and approval requests, from its last summary on. Unlike the history a run continues from, they keep
// the approval requests that were answered, so the case waits for them and answers them as the conversation did.
func FromEntries(entries []storage.Entry) (*Case, error) {
	var msgs []chat.Message
	for i, e := range entries {
		switch e.Type {
		case storage.EntryInput, storage.EntryResponse, storage.EntryToolResults, storage.EntrySteering,
			storage.EntryApprovalRequests:
			m, err := chat.UnmarshalMessages(e.Data)
			if err != nil {
				return nil, fmt.Errorf("eval: entry %d (%s): %w", i+1, e.Type, err)
			}
			msgs = append(msgs, m...)
		case storage.EntrySummary:
			var d struct {
				Messages []chat.Message `json:"messages"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return nil, fmt.Errorf("eval: entry %d (summary): %w", i+1, err)
			}
			msgs = d.Messages
		}
	}
	return FromMessages(msgs)
}

func onlyText(m chat.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(chat.Text); !ok {
			return false
		}
	}
	return true
}

// expectedCall is the expectation of a call as it was made: its tool, and its arguments when they are an object.
func expectedCall(c chat.ToolCall) Call {
	out := Call{Tool: c.Name}
	var args map[string]json.RawMessage
	if json.Unmarshal(c.Arguments, &args) == nil && len(args) > 0 {
		out.Arguments = args
	}
	return out
}

// MarshalIndent returns the case as a JSON file holds it.
func (c *Case) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return append(b, '\n'), nil
}

// ExpectAnswerFields turns the reference answer of a case made from a conversation (see [FromMessages]) into
// checks of a typed answer, for an agent that declares an answer type with agent.Returns: each top-level field
// of the stored answer must equal its value (Expect.Fields), or the whole answer when it is no object. The
// reference and its threshold go: a typed answer is checked field by field, not by its words. It fails, changing
// nothing, on a case without a reference or one whose reference is not JSON.
func (c *Case) ExpectAnswerFields() error {
	if c.Expect.Answer == nil || c.Expect.Answer.Reference == "" {
		return fmt.Errorf("%w: the case has no reference answer to check fields of", ErrCase)
	}
	fields, err := fieldsOf(json.RawMessage(c.Expect.Answer.Reference))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCase, err)
	}
	c.Expect.Fields = fields
	c.Expect.Answer.Reference = ""
	if a := c.Expect.Answer; len(a.Contains) == 0 && len(a.NotContains) == 0 && a.Regex == "" && len(a.Schema) == 0 {
		c.Expect.Answer = nil
	}
	delete(c.Thresholds, ScoreAnswer)
	if len(c.Thresholds) == 0 {
		c.Thresholds = nil
	}
	return nil
}

// fieldsOf is the checks that an answer equals answer: one for each top-level field of an object, in the order
// the answer has them, or one of the whole answer.
func fieldsOf(answer json.RawMessage) ([]Field, error) {
	d := json.NewDecoder(bytes.NewReader(answer))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("the reference answer is not JSON: %w", err)
	}
	if tok != json.Delim('{') {
		if !json.Valid(answer) {
			return nil, fmt.Errorf("the reference answer is not JSON")
		}
		return []Field{{Path: "", Equals: slices.Clone(answer)}}, nil
	}
	fields := []Field{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("the reference answer is not JSON: %w", err)
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("the reference answer is not JSON: %w", err)
		}
		key := k.(string)
		fields = append(fields, Field{Path: "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key), Equals: v})
	}
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("the reference answer is not JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("the reference answer is not JSON: more after the object")
	}
	if len(fields) == 0 {
		return []Field{{Path: "", Equals: slices.Clone(answer)}}, nil
	}
	return fields, nil
}
