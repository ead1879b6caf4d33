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
