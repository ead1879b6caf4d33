package chat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// The implementation before the single-pass encoder and decoder, on encoding/json, kept as the reference that
// the differential tests and the fuzz target compare against, and that the benchmarks race.

type refWireMessage struct {
	Role       chat.Role     `json:"role"`
	AuthorName string        `json:"author_name,omitempty"`
	Parts      []refWirePart `json:"parts"`
}

type refWirePart struct {
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
	Files      []refWirePart   `json:"files,omitempty"`

	Call   *refWirePart `json:"call,omitempty"`
	ToolID string       `json:"tool_id,omitempty"`

	RequestID string `json:"request_id,omitempty"`
	Approved  bool   `json:"approved,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Always    string `json:"always,omitempty"`

	InputTokens      int64 `json:"input_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens,omitempty"`
	TotalTokens      int64 `json:"total_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`

	Provider string          `json:"provider,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	DataText *string         `json:"data_text,omitempty"`

	MediaType string `json:"media_type,omitempty"`
	Bytes     []byte `json:"bytes,omitempty"`
	URL       string `json:"url,omitempty"`
	Encrypted string `json:"encrypted,omitempty"`
	Signature string `json:"signature,omitempty"`
	ItemID    string `json:"item_id,omitempty"`
	Index     int64  `json:"index,omitempty"`
}

// refMarshalMessage is the encoder before the single-pass one: the reference its output must equal.
func refMarshalMessage(m chat.Message) ([]byte, error) {
	w := refWireMessage{Role: m.Role, AuthorName: m.AuthorName, Parts: make([]refWirePart, 0, len(m.Parts))}
	for i, p := range m.Parts {
		wp, err := refEncodePart(p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		w.Parts = append(w.Parts, wp)
	}
	return json.Marshal(w)
}

// refMessage decodes a message as the decoder before the single-pass one did.
type refMessage struct{ m chat.Message }

func (r *refMessage) UnmarshalJSON(data []byte) error {
	var w refWireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	msg := chat.Message{Role: w.Role, AuthorName: w.AuthorName}
	if len(w.Parts) > 0 {
		msg.Parts = make([]chat.Part, 0, len(w.Parts))
	}
	for i := range w.Parts {
		p, err := refDecodePart(&w.Parts[i])
		if err != nil {
			return fmt.Errorf("decode message: part %d: %w", i, err)
		}
		msg.Parts = append(msg.Parts, p)
	}
	r.m = msg
	return nil
}

func (r refMessage) MarshalJSON() ([]byte, error) { return refMarshalMessage(r.m) }

func refMarshalMessages(msgs []chat.Message) ([]byte, error) {
	rs := make([]refMessage, len(msgs))
	for i := range msgs {
		rs[i].m = msgs[i]
	}
	return json.Marshal(rs)
}

func refUnmarshalMessages(data []byte) ([]chat.Message, error) {
	var rs []refMessage
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, err
	}
	if rs == nil {
		return nil, nil
	}
	msgs := make([]chat.Message, len(rs))
	for i := range rs {
		msgs[i] = rs[i].m
	}
	return msgs, nil
}

func refEncodePart(p chat.Part) (refWirePart, error) {
	switch p := p.(type) {
	case chat.Text:
		return refWirePart{Type: "text", Text: p.Text}, nil
	case chat.ToolCall:
		return refEncodeCall(p), nil
	case chat.ToolResult:
		w := refWirePart{Type: "tool_result", CallID: p.CallID, Error: p.Error}
		for _, f := range p.Files {
			w.Files = append(w.Files, refWirePart{Type: "file", Name: f.Name, MediaType: f.MediaType, Bytes: f.Data, URL: f.URL})
		}
		w.Result, w.ResultText = refEmbed(p.Result)
		return w, nil
	case chat.ApprovalRequest:
		c := refEncodeCall(p.Call)
		return refWirePart{Type: "approval_request", ID: p.ID, Call: &c, ToolID: p.ToolID}, nil
	case chat.ApprovalAnswer:
		always, err := refEncodeStanding(p.Always)
		if err != nil {
			return refWirePart{}, err
		}
		return refWirePart{Type: "approval_answer", RequestID: p.RequestID, Approved: p.Approved, Reason: p.Reason, Always: always}, nil
	case chat.File:
		return refWirePart{Type: "file", Name: p.Name, MediaType: p.MediaType, Bytes: p.Data, URL: p.URL}, nil
	case chat.Reasoning:
		return refWirePart{Type: "reasoning", Text: p.Text, ID: p.ID, Provider: p.Provider, Encrypted: p.Encrypted, Signature: p.Signature, Index: int64(p.Index)}, nil
	case chat.UsagePart:
		u := p.Usage
		return refWirePart{Type: "usage", InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
			CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens}, nil
	case chat.Raw:
		w := refWirePart{Type: "raw", Provider: p.Provider}
		w.Data, w.DataText = refEmbed(p.Data)
		return w, nil
	case nil:
		return refWirePart{}, errors.New("nil part")
	default:
		return refWirePart{}, fmt.Errorf("%w %T", chat.ErrUnknownPart, p)
	}
}

func refEncodeCall(c chat.ToolCall) refWirePart {
	w := refWirePart{Type: "tool_call", ID: c.ID, Name: c.Name, Provider: c.Provider, ItemID: c.ItemID}
	w.Arguments, w.ArgumentsText = refEmbed(c.Arguments)
	return w
}

func refDecodePart(w *refWirePart) (chat.Part, error) {
	switch w.Type {
	case "text":
		return chat.Text{Text: w.Text}, nil
	case "tool_call":
		return refDecodeCall(w), nil
	case "tool_result":
		var files []chat.File
		for i, f := range w.Files {
			if f.Type != "file" {
				return nil, fmt.Errorf("tool_result file %d: a part of type %q, not file", i, f.Type)
			}
			files = append(files, chat.File{Name: f.Name, MediaType: f.MediaType, Data: f.Bytes, URL: f.URL})
		}
		return chat.ToolResult{CallID: w.CallID, Result: refUnembed(w.Result, w.ResultText), Error: w.Error, Files: files}, nil
	case "approval_request":
		if w.Call == nil {
			return nil, errors.New("approval_request without a call")
		}
		return chat.ApprovalRequest{ID: w.ID, Call: refDecodeCall(w.Call), ToolID: w.ToolID}, nil
	case "approval_answer":
		always, err := refDecodeStanding(w.Always)
		if err != nil {
			return nil, err
		}
		return chat.ApprovalAnswer{RequestID: w.RequestID, Approved: w.Approved, Reason: w.Reason, Always: always}, nil
	case "file":
		return chat.File{Name: w.Name, MediaType: w.MediaType, Data: w.Bytes, URL: w.URL}, nil
	case "reasoning":
		return chat.Reasoning{Provider: w.Provider, ID: w.ID, Text: w.Text, Encrypted: w.Encrypted, Signature: w.Signature, Index: int(w.Index)}, nil
	case "usage":
		return chat.UsagePart{Usage: chat.Usage{InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, TotalTokens: w.TotalTokens,
			CacheReadTokens: w.CacheReadTokens, CacheWriteTokens: w.CacheWriteTokens, ReasoningTokens: w.ReasoningTokens}}, nil
	case "raw":
		return chat.Raw{Provider: w.Provider, Data: refUnembed(w.Data, w.DataText)}, nil
	case "":
		return nil, errors.New("part without a type")
	default:
		return nil, fmt.Errorf("%w %q", chat.ErrUnknownPart, w.Type)
	}
}

func refDecodeCall(w *refWirePart) chat.ToolCall {
	return chat.ToolCall{ID: w.ID, Name: w.Name, Arguments: refUnembed(w.Arguments, w.ArgumentsText), Provider: w.Provider, ItemID: w.ItemID}
}

func refEncodeStanding(s chat.Standing) (string, error) {
	switch s {
	case chat.Once:
		return "", nil
	case chat.ForTool:
		return "tool", nil
	case chat.ForArguments:
		return "arguments", nil
	}
	return "", fmt.Errorf("unknown standing approval scope %d", s)
}

func refDecodeStanding(s string) (chat.Standing, error) {
	switch s {
	case "", "once":
		return chat.Once, nil
	case "tool":
		return chat.ForTool, nil
	case "arguments":
		return chat.ForArguments, nil
	}
	return 0, fmt.Errorf("unknown standing approval scope %q", s)
}

// embed returns b to be embedded as JSON when it is valid JSON, or as text otherwise. Nil stays absent.
func refEmbed(b json.RawMessage) (json.RawMessage, *string) {
	if b == nil {
		return nil, nil
	}
	if len(b) > 0 && json.Valid(b) {
		return b, nil
	}
	s := string(b)
	return nil, &s
}

func refUnembed(b json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// FuzzDecodeDifferential checks that the decoder accepts exactly what the reference accepts, with the same
// messages and the same error, and that what it decodes encodes to the reference's bytes.
func FuzzDecodeDifferential(f *testing.F) {
	data, _ := refMarshalMessages(allParts())
	f.Add(data)
	data, _ = refMarshalMessages(history())
	f.Add(data)
	for _, tt := range decodeCases {
		f.Add([]byte(tt))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refUnmarshalMessages(data)
		got, gotErr := chat.UnmarshalMessages(data)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: reference error %v, got %v", data, wantErr, gotErr)
		}
		if wantErr != nil {
			if sameError(wantErr) != gotErr.Error() || errors.Is(wantErr, chat.ErrUnknownPart) != errors.Is(gotErr, chat.ErrUnknownPart) {
				t.Fatalf("%q: reference error %v, got %v", data, wantErr, gotErr)
			}
			return
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: reference %#v, got %#v", data, want, got)
		}
		wantEnc, wantErr := refMarshalMessages(got)
		gotEnc, gotErr := chat.MarshalMessages(got)
		if (wantErr == nil) != (gotErr == nil) || string(wantEnc) != string(gotEnc) {
			t.Fatalf("encode: reference %s (%v), got %s (%v)", wantEnc, wantErr, gotEnc, gotErr)
		}
	})
}

// sameError is the reference's error message with the names of the types it decodes into replaced by the ones
// the decoder under test names.
func sameError(err error) string {
	return strings.NewReplacer("chat_test.refMessage", "chat.Message", "chat_test.refWire", "chat.wire", "refWire", "wire").Replace(err.Error())
}
