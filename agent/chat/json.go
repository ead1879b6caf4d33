package chat

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrUnknownPart is wrapped by the error of decoding a part whose type this version does not know.
var ErrUnknownPart = errors.New("unknown part type")

// The JSON form of a message, for storage:
//
//	{"role":"assistant","author_name":"support","parts":[
//	  {"type":"text","text":"Let me look."},
//	  {"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}}]}
//
// Each part carries a "type" discriminator: text, tool_call, tool_result, approval_request, approval_answer,
// usage or raw. Arguments, results and raw data are embedded as JSON when they are valid JSON; a model's malformed
// arguments are kept verbatim in a "*_text" field instead, so that nothing stored is lost or rewritten.
type wireMessage struct {
	Role       Role       `json:"role"`
	AuthorName string     `json:"author_name,omitempty"`
	Parts      []wirePart `json:"parts"`
}

type wirePart struct {
	Type string `json:"type"`

	Text string `json:"text,omitempty"`

	ID            string          `json:"id,omitempty"`
	Name          string          `json:"name,omitempty"`
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	ArgumentsText *string         `json:"arguments_text,omitempty"`

	CallID     string          `json:"call_id,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	ResultText *string         `json:"result_text,omitempty"`
	Error      string          `json:"error,omitempty"`

	Call   *wirePart `json:"call,omitempty"`
	ToolID string    `json:"tool_id,omitempty"`

	RequestID string `json:"request_id,omitempty"`
	Approved  bool   `json:"approved,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Always    string `json:"always,omitempty"`

	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	TotalTokens  int64 `json:"total_tokens,omitempty"`

	Provider string          `json:"provider,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	DataText *string         `json:"data_text,omitempty"`
}

// MarshalJSON encodes the message with a type discriminator on each part.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, AuthorName: m.AuthorName, Parts: make([]wirePart, 0, len(m.Parts))}
	for i, p := range m.Parts {
		wp, err := encodePart(p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		w.Parts = append(w.Parts, wp)
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a message written by MarshalJSON. A part of unknown type is an error wrapping
// [ErrUnknownPart].
func (m *Message) UnmarshalJSON(data []byte) error {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	msg := Message{Role: w.Role, AuthorName: w.AuthorName}
	if len(w.Parts) > 0 {
		msg.Parts = make([]Part, 0, len(w.Parts))
	}
	for i := range w.Parts {
		p, err := decodePart(&w.Parts[i])
		if err != nil {
			return fmt.Errorf("decode message: part %d: %w", i, err)
		}
		msg.Parts = append(msg.Parts, p)
	}
	*m = msg
	return nil
}

// MarshalMessages encodes msgs as a JSON array.
func MarshalMessages(msgs []Message) ([]byte, error) {
	if msgs == nil {
		msgs = []Message{}
	}
	return json.Marshal(msgs)
}

// UnmarshalMessages decodes a JSON array written by MarshalMessages.
func UnmarshalMessages(data []byte) ([]Message, error) {
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

func encodePart(p Part) (wirePart, error) {
	switch p := p.(type) {
	case Text:
		return wirePart{Type: "text", Text: p.Text}, nil
	case ToolCall:
		return encodeCall(p), nil
	case ToolResult:
		w := wirePart{Type: "tool_result", CallID: p.CallID, Error: p.Error}
		w.Result, w.ResultText = embed(p.Result)
		return w, nil
	case ApprovalRequest:
		c := encodeCall(p.Call)
		c.Type = ""
		return wirePart{Type: "approval_request", ID: p.ID, Call: &c, ToolID: p.ToolID}, nil
	case ApprovalAnswer:
		always, err := encodeStanding(p.Always)
		if err != nil {
			return wirePart{}, err
		}
		return wirePart{Type: "approval_answer", RequestID: p.RequestID, Approved: p.Approved, Reason: p.Reason, Always: always}, nil
	case UsagePart:
		return wirePart{Type: "usage", InputTokens: p.Usage.InputTokens, OutputTokens: p.Usage.OutputTokens, TotalTokens: p.Usage.TotalTokens}, nil
	case Raw:
		w := wirePart{Type: "raw", Provider: p.Provider}
		w.Data, w.DataText = embed(p.Data)
		return w, nil
	case nil:
		return wirePart{}, errors.New("nil part")
	default:
		return wirePart{}, fmt.Errorf("%w %T", ErrUnknownPart, p)
	}
}

func encodeCall(c ToolCall) wirePart {
	w := wirePart{Type: "tool_call", ID: c.ID, Name: c.Name}
	w.Arguments, w.ArgumentsText = embed(c.Arguments)
	return w
}

func decodePart(w *wirePart) (Part, error) {
	switch w.Type {
	case "text":
		return Text{Text: w.Text}, nil
	case "tool_call":
		return decodeCall(w), nil
	case "tool_result":
		return ToolResult{CallID: w.CallID, Result: unembed(w.Result, w.ResultText), Error: w.Error}, nil
	case "approval_request":
		if w.Call == nil {
			return nil, errors.New("approval_request without a call")
		}
		return ApprovalRequest{ID: w.ID, Call: decodeCall(w.Call), ToolID: w.ToolID}, nil
	case "approval_answer":
		always, err := decodeStanding(w.Always)
		if err != nil {
			return nil, err
		}
		return ApprovalAnswer{RequestID: w.RequestID, Approved: w.Approved, Reason: w.Reason, Always: always}, nil
	case "usage":
		return UsagePart{Usage: Usage{InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, TotalTokens: w.TotalTokens}}, nil
	case "raw":
		return Raw{Provider: w.Provider, Data: unembed(w.Data, w.DataText)}, nil
	case "":
		return nil, errors.New("part without a type")
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownPart, w.Type)
	}
}

func decodeCall(w *wirePart) ToolCall {
	return ToolCall{ID: w.ID, Name: w.Name, Arguments: unembed(w.Arguments, w.ArgumentsText)}
}

func encodeStanding(s Standing) (string, error) {
	switch s {
	case Once:
		return "", nil
	case ForTool:
		return "tool", nil
	case ForArguments:
		return "arguments", nil
	}
	return "", fmt.Errorf("unknown standing approval scope %d", s)
}

func decodeStanding(s string) (Standing, error) {
	switch s {
	case "", "once":
		return Once, nil
	case "tool":
		return ForTool, nil
	case "arguments":
		return ForArguments, nil
	}
	return 0, fmt.Errorf("unknown standing approval scope %q", s)
}

// embed returns b to be embedded as JSON when it is valid JSON, or as text otherwise. Nil stays absent.
func embed(b json.RawMessage) (json.RawMessage, *string) {
	if b == nil {
		return nil, nil
	}
	if len(b) > 0 && json.Valid(b) {
		return b, nil
	}
	s := string(b)
	return nil, &s
}

func unembed(b json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}
