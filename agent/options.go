package agent

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// A RunOption sets the input and the parameters of one run.
type RunOption func(*runInput)

// runInput collects a run's options.
type runInput struct {
	history    []chat.Message
	input      []chat.Message
	parts      []chat.Part // parts of the user's input message: text, files and approval answers
	settingsID string
	// conversationID names the stored conversation the run continues (see Conversation).
	conversationID string
	mode           string
	modeSet        bool
	settings       json.RawMessage
	standing       []standingApproval // a sub-agent's caller's standing approvals
	into           *Result
	answerMode     AnswerMode // see UseAnswerMode
	err            error      // an option that could not be applied (StandingApprovals)
}

// Text adds text to the user's input message.
func Text(text string) RunOption {
	return func(r *runInput) { r.parts = append(r.parts, chat.Text{Text: text}) }
}

// Files adds images or documents to the user's input message, after any text before them. Providers that
// cannot take a file's media type refuse the request with an error naming it.
func Files(files ...chat.File) RunOption {
	return func(r *runInput) {
		for _, f := range files {
			r.parts = append(r.parts, f)
		}
	}
}

// Input adds whole messages to the run's input, after the history.
func Input(msgs ...chat.Message) RunOption {
	return func(r *runInput) { r.input = append(r.input, msgs...) }
}

// Messages sets the conversation so far. Without a conversation store the caller keeps it: pass
// [Result.Messages] of the previous run.
func Messages(history []chat.Message) RunOption {
	return func(r *runInput) { r.history = history }
}

// SettingsID names the tenant the run belongs to: its stored settings apply, and tools see it in
// [toolset.Run.SettingsID].
func SettingsID(id string) RunOption { return func(r *runInput) { r.settingsID = id } }

// Mode runs in a mode: [ModePlan], [ModeAuto] or [ModeDefault]. Pass [Result.Mode] of the previous run to go on
// in the mode it ended in.
func Mode(mode string) RunOption { return func(r *runInput) { r.mode, r.modeSet = mode, true } }

// RunSettings applies a settings document, of the shape the stored settings have, after the stored settings.
func RunSettings(doc json.RawMessage) RunOption { return func(r *runInput) { r.settings = doc } }

// Approve approves the pending request with this ID. The call runs exactly as the request showed it.
func Approve(requestID string) RunOption {
	return Answer(chat.ApprovalAnswer{RequestID: requestID, Approved: true})
}

// ApproveAlways approves the pending request and, for the rest of the conversation, later calls of the same tool
// ([chat.ForTool]) or of the same tool with the same arguments ([chat.ForArguments]).
func ApproveAlways(requestID string, scope chat.Standing) RunOption {
	return Answer(chat.ApprovalAnswer{RequestID: requestID, Approved: true, Always: scope})
}

// Reject rejects the pending request with this ID. The model reads reason, or "The tool call was denied." when it
// is empty.
func Reject(requestID, reason string) RunOption {
	return Answer(chat.ApprovalAnswer{RequestID: requestID, Reason: reason})
}

// Answer adds an approval answer to the user's input message.
func Answer(a chat.ApprovalAnswer) RunOption {
	return func(r *runInput) { r.parts = append(r.parts, a) }
}

// ResultInto makes [Host.RunStream] fill *res when the stream ends, as [Host.Run] would have returned it.
func ResultInto(res *Result) RunOption { return func(r *runInput) { r.into = res } }
