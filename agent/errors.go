package agent

import (
	"errors"
	"fmt"
)

// ErrNoClient reports a host that has neither a client nor providers to find one in.
var ErrNoClient = errors.New("agent: no chat client: set Config.Client or Config.Providers")

// ApprovalError reports an answer that cannot be bound to an open approval request. The run does not start.
type ApprovalError struct {
	// RequestID is the answered request's ID as the answer gave it.
	RequestID string
	// Reason says why: ApprovalUnknown, ApprovalClosed, ApprovalAnsweredTwice, ApprovalTampered or
	// ApprovalForged.
	Reason ApprovalProblem
}

// ApprovalProblem says what is wrong with an answer.
type ApprovalProblem string

// The problems an [ApprovalError] reports.
const (
	// ApprovalUnknown: no request in the history has the ID (a forged or mistyped ID).
	ApprovalUnknown ApprovalProblem = "no request has this id"
	// ApprovalClosed: the request was already answered and its call has a result.
	ApprovalClosed ApprovalProblem = "the request is already closed"
	// ApprovalAnsweredTwice: the input answers the same request more than once.
	ApprovalAnsweredTwice ApprovalProblem = "the request is answered more than once"
	// ApprovalTampered: the request in the history no longer matches the call it was made for, so its arguments
	// or tool were changed after it was shown.
	ApprovalTampered ApprovalProblem = "the request does not match its call"
	// ApprovalForged: the input of a run with a conversation carries an approval request. Only the host issues
	// requests, and the conversation's stored history holds them; an input can answer them, never add one.
	ApprovalForged ApprovalProblem = "the input carries an approval request, which only the host may issue"
)

func (e *ApprovalError) Error() string {
	return fmt.Sprintf("approval answer for %q: %s", e.RequestID, e.Reason)
}

// RetryLimitError ends a run when a tool asked the model to retry in more consecutive steps than the limit allows.
type RetryLimitError struct {
	// Tool is the tool's name as offered; ToolID its identity.
	Tool, ToolID string
	// Limit is the run's retry limit.
	Limit int
	// Message is the tool's last retry message.
	Message string
}

func (e *RetryLimitError) Error() string {
	return fmt.Sprintf("tool %q asked for a retry in more than %d consecutive steps; last: %s", e.Tool, e.Limit, e.Message)
}

// ToolFailuresError ends a run after too many consecutive rounds with a failing tool call.
type ToolFailuresError struct {
	// Rounds is the number of consecutive failing rounds.
	Rounds int
	// Last is the last failure's message, as the model read it.
	Last string
}

func (e *ToolFailuresError) Error() string {
	return fmt.Sprintf("%d consecutive rounds with failing tool calls; last: %s", e.Rounds, e.Last)
}

// UseError reports an agent's toolset use the host cannot satisfy.
type UseError struct {
	// Toolset is the used type, such as "*support.Tickets".
	Toolset string
	// Found is the number of matching instances in Config.Toolsets.
	Found int
}

func (e *UseError) Error() string {
	if e.Found == 0 {
		return fmt.Sprintf("agent uses %s but Config.Toolsets holds no instance of it", e.Toolset)
	}
	return fmt.Sprintf("agent uses %s but Config.Toolsets holds %d instances of it; pass one", e.Toolset, e.Found)
}

// errStopped ends a streamed pass when the consumer stops reading; it never reaches a caller.
var errStopped = errors.New("agent: the consumer stopped reading")

// Errors of a run with a conversation that callers branch on with errors.Is.
var (
	// ErrNoStore reports a run with a conversation on a host without Config.Store.
	ErrNoStore = errors.New("agent: a run with a conversation needs Config.Store")
	// ErrNoSettingsID reports a run with a conversation but no settings id: conversations belong to a tenant,
	// and there is no default one.
	ErrNoSettingsID = errors.New("agent: a run with a conversation needs a settings id")
	// ErrHistoryWithConversation reports a run given both Messages and a conversation: the store keeps the
	// conversation's history, so the caller passes only the new input.
	ErrHistoryWithConversation = errors.New("agent: Messages and Conversation cannot be combined: the store keeps the history")
)

// ConversationError reports what failed in the conversation layer of a run: claiming the conversation, loading
// it, or storing a step. It wraps the store's error, so errors.Is(err, storage.ErrConversationBusy) tells a
// conversation that has a live run, and errors.As finds a *storage.CorruptEntryError.
type ConversationError struct {
	// ConversationID is the conversation the run continued.
	ConversationID string
	// Op says what the run was doing, such as "claiming the conversation" or "storing the tool results".
	Op string
	// Err is the store's error.
	Err error
}

func (e *ConversationError) Error() string {
	return fmt.Sprintf("conversation %q: %s: %v", e.ConversationID, e.Op, e.Err)
}

func (e *ConversationError) Unwrap() error { return e.Err }

// errReaderStopped is what the end of a streaming run records when its caller stopped reading.
var errReaderStopped = errors.New("the caller stopped reading the run's updates")
