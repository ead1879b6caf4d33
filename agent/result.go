package agent

import (
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Result is what a run produced. [Host.Run] returns one with every error too: empty when the run failed before
// its first model call, and holding what the run got to otherwise. Its methods accept a nil *Result as well, so
// res.Text() never panics, whatever path produced res.
type Result struct {
	// Messages is the whole conversation: the history, the input and the run's new messages. Pass it to the next
	// run with [Messages]; it holds the pending requests and the standing approvals. In a run with a
	// [Conversation] the history is the one loaded from the store, and the store keeps it for the next run.
	Messages []chat.Message
	// New is the messages the run added after its input: the tail of Messages.
	New []chat.Message
	// Usage adds up the tokens of every model call of the run.
	Usage chat.Usage
	// Cost is what the run's model calls cost, as [Config.Meter] priced them: zero without a meter.
	Cost Cost
	// Pending lists the approval requests the run ended with. Answer them in the next run with [Approve],
	// [Reject] or [Answer].
	Pending []chat.ApprovalRequest
	// Mode is the mode the run ended in; pass it to the next run with [Mode].
	Mode string
	// FinishReason is the last model call's.
	FinishReason chat.FinishReason
	// Agent names the agent that answered last: the host's own, or the agent the run was handed off to (see
	// docs/handoff.md). The conversation's next run goes to it.
	Agent string
	// Answer is the typed answer the run accepted, as JSON, for an agent that declares an answer type with
	// [Returns]; nil for an agent that answers with text, or a run that ended before an answer was accepted
	// (waiting for approvals, or failed: see [AnswerError]).
	Answer json.RawMessage
	// Value is Answer decoded by the agent's generated decoder: its dynamic type is the answer type (T, not *T).
	// Read it with [AnswerOf].
	Value any
	// AnswerType names the type of Answer (its [AnswerType].Name): the answer type of the agent that answered
	// (Agent), which after a handoff need not be the host's; "" when Answer is nil.
	AnswerType string
}

// AnswerOf returns the run's typed answer as T, the type the agent declares with [Returns]. It fails when the run
// has no answer (see [Result.Answer]) or when T is not the answer type.
func AnswerOf[T any](r *Result) (T, error) {
	var zero T
	if r == nil || r.Value == nil {
		return zero, fmt.Errorf("agent: the run has no answer")
	}
	v, ok := r.Value.(T)
	if !ok {
		return zero, fmt.Errorf("agent: the answer is a %T, not a %T", r.Value, zero)
	}
	return v, nil
}

// Text returns the text of the last assistant message of the run, or "" when there is none: a run that
// failed, or one that ended waiting for approvals ([Result.Pending]) before the model could answer.
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	for i := len(r.New) - 1; i >= 0; i-- {
		if r.New[i].Role == chat.RoleAssistant {
			if t := r.New[i].Text(); t != "" {
				return t
			}
		}
	}
	return ""
}

// Waiting reports whether the run ended with approval requests to answer in the next run: [Result.Pending] is
// not empty. A request that a rule decided (see [RuleFor]) is never pending.
func (r *Result) Waiting() bool { return r != nil && len(r.Pending) > 0 }
