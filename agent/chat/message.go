package chat

import (
	"encoding/json"
	"strings"
)

// Role says who wrote a message.
type Role string

// The roles a message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one turn of a conversation: a role, an optional author name and typed parts.
type Message struct {
	Role Role
	// AuthorName names who wrote it, such as the agent that answered.
	AuthorName string
	Parts      []Part
}

// Text returns the concatenated text parts of m.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool-call parts of m.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// UserText returns a user message with one text part.
func UserText(text string) Message { return Message{Role: RoleUser, Parts: []Part{Text{Text: text}}} }

// SystemText returns a system message with one text part.
func SystemText(text string) Message {
	return Message{Role: RoleSystem, Parts: []Part{Text{Text: text}}}
}

// A Part is one piece of a message. The set of parts is closed: Text, ToolCall, ToolResult, ApprovalRequest,
// ApprovalAnswer, UsagePart and Raw.
type Part interface{ isPart() }

// Text is text written by a person or a model.
type Text struct{ Text string }

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	// ID identifies the call within the run; results and approvals refer to it.
	ID string
	// Name is the tool's name as offered.
	Name string
	// Arguments is the JSON the model sent. It may be malformed: the tool loop answers it.
	Arguments json.RawMessage
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	// CallID is the answered call's ID.
	CallID string
	// Result is the tool's result as JSON, when it succeeded.
	Result json.RawMessage
	// Error is the message the model reads when the call failed, was rejected or could not run.
	Error string
}

// ApprovalRequest asks the application to approve a call before it runs.
type ApprovalRequest struct {
	// ID identifies the request; an answer names it.
	ID string
	// Call is the call waiting for approval, exactly as it will run.
	Call ToolCall
	// ToolID is the tool's identity (toolset.Tool.ID), which rules and standing approvals key on.
	ToolID string
}

// ApprovalAnswer answers an ApprovalRequest.
type ApprovalAnswer struct {
	// RequestID is the answered request's ID.
	RequestID string
	// Approved says whether the call may run.
	Approved bool
	// Reason is what the model reads when the call is rejected; empty gives "The tool call was denied.".
	Reason string
	// Always makes the approval standing for the rest of the conversation, with the given scope.
	Always Standing
}

// Standing is the scope of a standing approval.
type Standing int

const (
	// Once approves this call only.
	Once Standing = iota
	// ForTool approves every later call of the same tool.
	ForTool
	// ForArguments approves later calls of the same tool with the same arguments.
	ForArguments
)

// UsagePart records token usage inside a message, as providers report it in streams.
type UsagePart struct{ Usage Usage }

// Raw carries provider data the abstraction does not model.
type Raw struct {
	// Provider names the provider that wrote Data and can read it back.
	Provider string
	// Data is the provider's JSON, kept as it came.
	Data json.RawMessage
}

func (Text) isPart()            {}
func (ToolCall) isPart()        {}
func (ToolResult) isPart()      {}
func (ApprovalRequest) isPart() {}
func (ApprovalAnswer) isPart()  {}
func (UsagePart) isPart()       {}
func (Raw) isPart()             {}
