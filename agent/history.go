package agent

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// The data of the entries a conversation's runs write (see docs/conversations.md). Input, responses, tool results,
// steering input and approval requests hold a JSON array of messages (chat.MarshalMessages); the others hold the
// objects below.

// savedState is what a conversation's later runs resume from, as a run's start, end and summary entries store it:
// the mode, the standing approvals and, once the conversation has been handed off, the agent that answered last.
type savedState struct {
	Mode     string             `json:"mode"`
	Standing []StandingApproval `json:"standing,omitempty"`
	// Agent is the agent that answered last, once the conversation has been handed off: the next run goes to it.
	Agent string `json:"agent,omitempty"`
}

// runStartData is the data of an EntryRunStart: the mode the run starts in.
type runStartData struct {
	savedState
}

// runEndData is the data of an EntryRunEnd: what the next run resumes from.
type runEndData struct {
	savedState
	Pending int    `json:"pending,omitempty"`
	Error   string `json:"error,omitempty"`
	// Usage is the tokens the run's model calls took, for people and pages reading the conversation: no run
	// reads it back.
	Usage *usageData `json:"usage,omitempty"`
	// Cost is what the run's model calls cost, as Config.Meter priced them; nil without a meter.
	Cost *costData `json:"cost,omitempty"`
}

// usageData is a run's usage as stored.
type usageData struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
}

// summaryData is the data of an EntrySummary: the messages that stand for everything before it, and the state a
// later run would otherwise not find, since it reads nothing before the summary.
type summaryData struct {
	Messages []chat.Message `json:"messages"`
	savedState
}

// A StandingApproval is one of a conversation's standing approvals: later calls of the tool ToolID need no
// approval, every call or, when Args is set, only calls with these arguments (canonical JSON). Its JSON form is
// the one a conversation's entries store. A tool that starts another agent's run for its caller carries them
// there ([CallerApprovals], [InheritApprovals]).
type StandingApproval struct {
	// ToolID identifies the tool (toolset.Tool.ID, or its name when it has none).
	ToolID string `json:"tool_id"`
	// Args are the approved calls' arguments in canonical JSON, or "" for every call of the tool.
	Args string `json:"args,omitempty"`
}

// startedData is the data of the EntryApprovalAnswers a run writes just before it runs a call that needed
// approval: once it is stored, no later run runs that call again.
type startedData struct {
	Started []startedCall `json:"started"`
}

type startedCall struct {
	RequestID string `json:"request_id"`
	CallID    string `json:"call_id"`
	ToolID    string `json:"tool_id,omitempty"`
}

// interruptedText answers a call that needed approval, started, and whose result was never stored because the
// run stopped (a crash, a lost store). It is not run again: it may have taken effect.
const interruptedText = "The run stopped while this tool call was running, so its result was lost. It may or may not " +
	"have taken effect, and it was not run again: check before repeating it."

// loaded is a conversation as the next run sees it.
type loaded struct {
	msgs     []chat.Message
	mode     string
	standing []standingApproval
	agent    string // the agent that answered last, when the conversation was handed off
	// closed holds the IDs of the approval requests that were answered and whose calls have a result: an answer
	// to one of them is an error (ApprovalClosed).
	closed map[string]bool
}

func toStanding(s []StandingApproval) []standingApproval {
	out := make([]standingApproval, len(s))
	for i, d := range s {
		out[i] = standingApproval{toolID: d.ToolID, args: d.Args}
	}
	return out
}

func fromStanding(s []standingApproval) []StandingApproval {
	if len(s) == 0 {
		return nil
	}
	out := make([]StandingApproval, 0, len(s))
	for _, a := range s {
		d := StandingApproval{ToolID: a.toolID, Args: a.args}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// corrupt reports an entry the run cannot use, naming the conversation and the entry, as the store does.
func corrupt(conversationID string, e storage.Entry, err error) error {
	return &storage.CorruptEntryError{ConversationID: conversationID, Seq: e.Seq, Err: fmt.Errorf("%s entry: %w", e.Type, err)}
}

// buildHistory rebuilds what the next run sends the model from the entries since the last summary. The history
// holds no call without a result (a call whose result was never stored is dropped, so the model decides again),
// no approval answer (each was bound in its own run), no approval request whose call has a result, and no error
// of a run. A call that needed approval, started and has no stored result gets a result saying so
// (interruptedText): it never runs twice. The open approval requests stay, for the run's answers to bind to.
func buildHistory(conversationID string, entries []storage.Entry) (*loaded, error) {
	l := &loaded{closed: map[string]bool{}}
	var msgs []chat.Message
	started := map[string]startedCall{} // by call ID
	for _, e := range entries {
		switch e.Type {
		case storage.EntryInput, storage.EntryResponse, storage.EntryToolResults, storage.EntrySteering, storage.EntryApprovalRequests:
			m, err := chat.UnmarshalMessages(e.Data)
			if err != nil {
				return nil, corrupt(conversationID, e, err)
			}
			msgs = append(msgs, m...)
		case storage.EntryRunStart:
		case storage.EntryRunEnd:
			var d runEndData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return nil, corrupt(conversationID, e, err)
			}
			l.mode, l.standing, l.agent = d.Mode, toStanding(d.Standing), d.Agent
		case storage.EntrySummary:
			var d summaryData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return nil, corrupt(conversationID, e, err)
			}
			msgs = slices.Clone(d.Messages)
			l.mode, l.standing, l.agent = d.Mode, toStanding(d.Standing), d.Agent
		case storage.EntryApprovalAnswers:
			var d startedData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				return nil, corrupt(conversationID, e, err)
			}
			for _, s := range d.Started {
				started[s.CallID] = s
				l.closed[s.RequestID] = true
			}
		default:
			return nil, corrupt(conversationID, e, fmt.Errorf("unknown entry type"))
		}
	}

	results := map[string]bool{}
	lastCall := map[string]int{} // call ID -> index of the last message that makes the call
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolResult:
				results[p.CallID] = true
			case chat.ToolCall:
				lastCall[p.ID] = i
			}
		}
	}

	// Calls that started and lost their result: answer them where they were made, or where their request was.
	if len(started) > 0 {
		var out []chat.Message
		for i, m := range msgs {
			var lost []chat.Part
			for j, p := range m.Parts {
				var id string
				switch p := p.(type) {
				case chat.ToolCall:
					if lastCall[p.ID] == i {
						id = p.ID
					}
				case chat.ApprovalRequest:
					if _, made := lastCall[p.Call.ID]; !made {
						id = p.Call.ID
						if _, ok := started[id]; ok && !results[id] {
							m.Parts = slices.Clone(m.Parts)
							m.Parts[j] = p.Call
							lastCall[id] = i
						}
					}
				}
				if _, ok := started[id]; ok && id != "" && !results[id] {
					results[id] = true
					lost = append(lost, chat.ToolResult{CallID: id, Error: interruptedText})
				}
			}
			out = append(out, m)
			if len(lost) > 0 {
				out = append(out, chat.Message{Role: chat.RoleTool, Parts: lost})
			}
		}
		msgs = out
	}

	calls := map[string]bool{}
	out := msgs[:0:0]
	for i, m := range msgs {
		var parts []chat.Part
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ApprovalAnswer:
				continue
			case chat.ApprovalRequest:
				if results[p.Call.ID] {
					l.closed[p.ID] = true
					continue
				}
				if _, ok := started[p.Call.ID]; ok {
					l.closed[p.ID] = true
					continue
				}
			case chat.ToolCall:
				// Keep a call once, where it was last made (an approved call is made again when its request is
				// resolved), and only with its result.
				if !results[p.ID] || lastCall[p.ID] != i {
					continue
				}
				calls[p.ID] = true
			case chat.ToolResult:
				if !calls[p.CallID] {
					continue // its call is before the summary, or was dropped
				}
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			continue
		}
		m.Parts = parts
		out = append(out, m)
	}
	l.msgs = out
	return l, nil
}

// checkAnswers returns an error when the input answers a request that closed in an earlier run, or one that the
// conversation's stored history does not hold open (a forged or mistyped ID, or one of another conversation),
// before anything of the run is stored. Only the stored requests count: checkConversationInput has refused an
// input that carries requests of its own.
func (l *loaded) checkAnswers(input []chat.Message) error {
	var open []chat.ApprovalRequest
	for a := range partsOf[chat.ApprovalAnswer](input) {
		if l.closed[a.RequestID] {
			return &ApprovalError{RequestID: a.RequestID, Reason: ApprovalClosed}
		}
		if open == nil {
			open = requestsIn(l.msgs)
		}
		if !slices.ContainsFunc(open, func(r chat.ApprovalRequest) bool { return r.ID == a.RequestID }) {
			return &ApprovalError{RequestID: a.RequestID, Reason: ApprovalUnknown}
		}
	}
	return nil
}

// checkConversationInput refuses the input of a run with a conversation that carries what only the host and the
// model write: approval requests (an [ApprovalError] with ApprovalForged), tool calls, tool results, and messages
// of the assistant or tool roles (ErrHistoryWithConversation). The store keeps the conversation's history; a
// caller adds user input, system messages and approval answers.
func checkConversationInput(input []chat.Message) error {
	for i, m := range input {
		switch m.Role {
		case chat.RoleAssistant, chat.RoleTool:
			return fmt.Errorf("input message %d has the role %q: %w", i, m.Role, ErrHistoryWithConversation)
		}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ApprovalRequest:
				return &ApprovalError{RequestID: p.ID, Reason: ApprovalForged}
			case chat.ToolCall:
				return fmt.Errorf("input message %d carries the tool call %q: %w", i, p.ID, ErrHistoryWithConversation)
			case chat.ToolResult:
				return fmt.Errorf("input message %d carries a result of the tool call %q: %w", i, p.CallID, ErrHistoryWithConversation)
			case chat.Reasoning:
				// Reasoning goes back to the provider as the model's own, signed: only a model's answer holds it.
				return fmt.Errorf("input message %d carries reasoning of %q: %w", i, p.Provider, ErrHistoryWithConversation)
			}
		}
	}
	return nil
}

// marshalEntry returns an entry of type t holding msgs.
func marshalEntry(t storage.EntryType, msgs []chat.Message) (storage.Entry, error) {
	data, err := chat.MarshalMessages(shallowMessages(msgs))
	if err != nil {
		return storage.Entry{}, fmt.Errorf("encoding %s: %w", t, err)
	}
	return storage.Entry{Type: t, Data: data}, nil
}

// jsonEntry returns an entry of type t holding v.
func jsonEntry(t storage.EntryType, v any) storage.Entry {
	data, err := json.Marshal(v)
	if err != nil {
		// The values are the package's own structs of strings and ints: they always encode.
		data = []byte("null")
	}
	return storage.Entry{Type: t, Data: data}
}

func withAuthor(m chat.Message, name string) chat.Message {
	if m.AuthorName == "" {
		m.AuthorName = name
	}
	return m
}

// requestsIn returns the approval requests of msgs.
func requestsIn(msgs []chat.Message) []chat.ApprovalRequest {
	var out []chat.ApprovalRequest
	for r := range partsOf[chat.ApprovalRequest](msgs) {
		out = append(out, r)
	}
	return out
}
