package chat

import (
	"encoding/json"
	"strconv"
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

// UserFile returns a user message with text followed by files (either may be empty).
func UserFile(text string, files ...File) Message {
	m := Message{Role: RoleUser}
	if text != "" {
		m.Parts = append(m.Parts, Text{Text: text})
	}
	for _, f := range files {
		m.Parts = append(m.Parts, f)
	}
	return m
}

// UserText returns a user message with one text part.
func UserText(text string) Message { return Message{Role: RoleUser, Parts: []Part{Text{Text: text}}} }

// SystemText returns a system message with one text part.
func SystemText(text string) Message {
	return Message{Role: RoleSystem, Parts: []Part{Text{Text: text}}}
}

// A Part is one piece of a message. The set of parts is closed: Text, File, Reasoning, ToolCall, ToolResult,
// ApprovalRequest, ApprovalAnswer, UsagePart and Raw.
type Part interface{ isPart() }

// Text is text written by a person or a model.
type Text struct{ Text string }

// File is an image or a document given to the model: its bytes with their media type, or a URL the provider
// fetches. Exactly one of Data and URL is set.
type File struct {
	// MediaType is the IANA media type, such as "image/png" or "application/pdf". It is required with Data; with
	// a URL, empty means an image of a type the provider works out.
	MediaType string
	// Data holds the file's bytes.
	Data []byte
	// URL names the file where the provider can fetch it: https, or a provider's own file reference.
	URL string
	// Name is the file's name, for providers that show or need one; it may be empty.
	Name string
}

// IsImage reports whether f is an image: its media type is image/*, or it is a URL without a media type.
func (f File) IsImage() bool {
	return strings.HasPrefix(f.MediaType, "image/") || (f.MediaType == "" && f.URL != "")
}

// NotShown returns the line a model reads in place of f when a provider cannot show it, saying why, such as
// "[image image/svg+xml, 512 bytes, not shown: Claude takes JPEG, PNG, GIF and WebP images in a tool result]".
func (f File) NotShown(why string) string {
	kind := "file"
	if f.IsImage() {
		kind = "image"
	}
	what := f.URL
	if len(f.Data) > 0 || f.URL == "" {
		what = f.MediaType + ", " + strconv.Itoa(len(f.Data)) + " bytes"
	}
	return "[" + kind + " " + what + ", not shown: " + why + "]"
}

// Reasoning is the model's reasoning before its answer, as the provider returned it: readable text (the
// reasoning itself or a summary), an encrypted or redacted form, or both, with the signature the provider
// checks when it is sent back. Providers send a Reasoning part back only to the provider named in Provider
// and leave it out, silently, for any other: a conversation handed from one provider to another goes on.
type Reasoning struct {
	// Provider names the provider that wrote the part, as its ProviderName; only it reads the part back.
	Provider string
	// ID is the provider's id of the reasoning item, where it has one.
	ID string
	// Text is the readable reasoning, or its summary. It may be empty when only an encrypted form came.
	Text string
	// Encrypted is the opaque form the provider reads back: a redacted thinking block, encrypted content.
	Encrypted string
	// Signature is the provider's signature over the reasoning (or, for providers that sign a following part,
	// such as a tool call, over that part). Providers whose signatures are bytes keep them in standard base64.
	Signature string
	// Index is the part's position among the parts of one provider item that holds several, such as the summary
	// parts of an OpenAI Responses reasoning item: parts with one ID and different Index are kept apart and sent
	// back, in order, as the one item they came in.
	Index int
}

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	// ID identifies the call within the run; results and approvals refer to it.
	ID string
	// Name is the tool's name as offered.
	Name string
	// Arguments is the JSON the model sent. It may be malformed: the tool loop answers it.
	Arguments json.RawMessage
	// Provider names the provider that wrote ItemID, as its ProviderName; only it sends ItemID back.
	Provider string
	// ItemID is the provider's own id of the item that carried the call, where its API has one beside the call's
	// ID and needs it back with the call: the OpenAI Responses API's function_call item id ("fc_..."), which
	// must follow the reasoning item it belongs to on the next request.
	ItemID string
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	// CallID is the answered call's ID.
	CallID string
	// Result is the tool's result as JSON, when it succeeded.
	Result json.RawMessage
	// Error is the message the model reads when the call failed, was rejected or could not run.
	Error string
	// Files are the images the tool returned beside Result, in order: the tool loop sets them from the image
	// parts of a [toolset.Content] result, whose text (Result) holds a line such as "[image image/png, 5120
	// bytes]" where each stood. A provider sends each image it takes with the result, as an image; in place of
	// one it cannot take, the model reads a line naming it and why (docs/providers.md says which, per provider).
	Files []File
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
func (File) isPart()            {}
func (Reasoning) isPart()       {}
func (ToolCall) isPart()        {}
func (ToolResult) isPart()      {}
func (ApprovalRequest) isPart() {}
func (ApprovalAnswer) isPart()  {}
func (UsagePart) isPart()       {}
func (Raw) isPart()             {}
