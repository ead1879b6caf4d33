package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// ErrUnknownPart is wrapped by the error of decoding a part whose type this version does not know.
var ErrUnknownPart = errors.New("unknown part type")

// The JSON form of a message, for storage:
//
//	{"role":"assistant","author_name":"support","parts":[
//	  {"type":"text","text":"Let me look."},
//	  {"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}}]}
//
// Each part carries a "type" discriminator: text, file, reasoning, tool_call, tool_result, approval_request,
// approval_answer, usage or raw. A file's bytes are base64 in "bytes"; a tool result's files are a list of file
// parts in "files". Arguments, results and raw data are embedded as JSON when they are valid JSON; a model's
// malformed arguments are kept verbatim in a "*_text" field instead, so that nothing stored is lost or rewritten.
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
	Files      []wirePart      `json:"files,omitempty"`

	Call   *wirePart `json:"call,omitempty"`
	ToolID string    `json:"tool_id,omitempty"`

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

// MarshalJSON encodes the message with a type discriminator on each part.
func (m Message) MarshalJSON() ([]byte, error) {
	b, err := appendMessage(make([]byte, 0, messageSize(&m)), &m)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// UnmarshalJSON decodes a message written by MarshalJSON. A part of unknown type is an error wrapping
// [ErrUnknownPart].
func (m *Message) UnmarshalJSON(data []byte) error {
	d := tooljson.NewDecoder(data)
	var msg Message
	if decodeMessage(&d, &msg) {
		d.End()
		if d.Err() == nil {
			*m = msg
			return nil
		}
	}
	return m.unmarshalSlow(data)
}

// MarshalMessages encodes msgs as a JSON array.
func MarshalMessages(msgs []Message) ([]byte, error) {
	n := 2
	for i := range msgs {
		n += messageSize(&msgs[i]) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendMessage(b, &msgs[i]); err != nil {
			// encoding/json words the error (it names the method and the type).
			return json.Marshal(msgs)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalMessages decodes a JSON array written by MarshalMessages.
func UnmarshalMessages(data []byte) ([]Message, error) {
	if msgs, ok := decodeMessages(data); ok {
		return msgs, nil
	}
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
		w := wirePart{Type: "tool_result", CallID: p.CallID, Error: p.Error, Files: encodeFiles(p.Files)}
		w.Result, w.ResultText = embed(p.Result)
		return w, nil
	case ApprovalRequest:
		c := encodeCall(p.Call) // typed "tool_call", as every part is
		return wirePart{Type: "approval_request", ID: p.ID, Call: &c, ToolID: p.ToolID}, nil
	case ApprovalAnswer:
		always, err := encodeStanding(p.Always)
		if err != nil {
			return wirePart{}, err
		}
		return wirePart{Type: "approval_answer", RequestID: p.RequestID, Approved: p.Approved, Reason: p.Reason, Always: always}, nil
	case File:
		return encodeFile(p), nil
	case Reasoning:
		return wirePart{Type: "reasoning", Text: p.Text, ID: p.ID, Provider: p.Provider, Encrypted: p.Encrypted, Signature: p.Signature,
			Index: int64(p.Index)}, nil
	case UsagePart:
		u := p.Usage
		return wirePart{Type: "usage", InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
			CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens}, nil
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

func encodeFile(f File) wirePart {
	return wirePart{Type: "file", Name: f.Name, MediaType: f.MediaType, Bytes: f.Data, URL: f.URL}
}

// encodeFiles returns a tool result's files as file parts; none is nil, which leaves "files" out.
func encodeFiles(fs []File) []wirePart {
	if len(fs) == 0 {
		return nil
	}
	ws := make([]wirePart, len(fs))
	for i, f := range fs {
		ws[i] = encodeFile(f)
	}
	return ws
}

// decodeFiles returns a tool result's files, each of which must be a file part.
func decodeFiles(ws []wirePart) ([]File, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	fs := make([]File, len(ws))
	for i := range ws {
		w := &ws[i]
		if w.Type != "file" {
			return nil, fmt.Errorf("tool_result file %d: a part of type %q, not file", i, w.Type)
		}
		fs[i] = File{Name: w.Name, MediaType: w.MediaType, Data: w.Bytes, URL: w.URL}
	}
	return fs, nil
}

func encodeCall(c ToolCall) wirePart {
	w := wirePart{Type: "tool_call", ID: c.ID, Name: c.Name, Provider: c.Provider, ItemID: c.ItemID}
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
		files, err := decodeFiles(w.Files)
		if err != nil {
			return nil, err
		}
		return ToolResult{CallID: w.CallID, Result: unembed(w.Result, w.ResultText), Error: w.Error, Files: files}, nil
	case "approval_request":
		if w.Call == nil {
			return nil, errors.New("approval_request without a call")
		}
		return ApprovalRequest{ID: w.ID, Call: decodeCall(w.Call), ToolID: w.ToolID}, nil
	case "approval_answer":
		always, err := ParseStanding(w.Always)
		if err != nil {
			return nil, err
		}
		return ApprovalAnswer{RequestID: w.RequestID, Approved: w.Approved, Reason: w.Reason, Always: always}, nil
	case "file":
		return File{Name: w.Name, MediaType: w.MediaType, Data: w.Bytes, URL: w.URL}, nil
	case "reasoning":
		return Reasoning{Provider: w.Provider, ID: w.ID, Text: w.Text, Encrypted: w.Encrypted, Signature: w.Signature,
			Index: int(w.Index)}, nil
	case "usage":
		return UsagePart{Usage: Usage{InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, TotalTokens: w.TotalTokens,
			CacheReadTokens: w.CacheReadTokens, CacheWriteTokens: w.CacheWriteTokens, ReasoningTokens: w.ReasoningTokens}}, nil
	case "raw":
		return Raw{Provider: w.Provider, Data: unembed(w.Data, w.DataText)}, nil
	case "":
		return nil, errors.New("part without a type")
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownPart, w.Type)
	}
}

func decodeCall(w *wirePart) ToolCall {
	return ToolCall{ID: w.ID, Name: w.Name, Arguments: unembed(w.Arguments, w.ArgumentsText), Provider: w.Provider, ItemID: w.ItemID}
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

// ParseStanding reads a standing approval's scope as the wire formats write it: "" or "once" for [Once], "tool"
// for [ForTool], "arguments" for [ForArguments]. Any other word is an error.
func ParseStanding(s string) (Standing, error) {
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
	if len(b) > 0 && (tooljson.RawOK(b) || json.Valid(b)) {
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

// unmarshalSlow decodes with encoding/json: for the input the single-pass decoder leaves to it (errors, which it
// words; keys in another case; repeated keys; raw values nested deeper than tooljson.MaxDepth), so that both
// accept and produce exactly the same.
func (m *Message) unmarshalSlow(data []byte) error {
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

// The single-pass forms below read and write the wire form above with tooljson, without reflection. They are
// what MarshalJSON, UnmarshalJSON and the slice functions use; the decoder hands whatever it does not handle
// itself to encoding/json, so that the two accept exactly the same input.

// messageKeys and partKeys are the wire form's names, for telling an unknown key from a known one in another
// case, which encoding/json matches.
var (
	messageKeys = []string{"role", "author_name", "parts"}
	partKeys    = []string{"type", "text", "id", "name", "arguments", "arguments_text", "call_id", "result",
		"result_text", "error", "files", "call", "tool_id", "request_id", "approved", "reason", "always", "input_tokens",
		"output_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "provider",
		"data", "data_text", "media_type", "bytes", "url", "encrypted", "signature", "item_id", "index"}
)

// foldsTo reports whether key equals one of names ignoring case, as encoding/json matches keys.
func foldsTo(key []byte, names []string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// decodeMessages reads a JSON array of messages; false means the input is left to encoding/json.
func decodeMessages(data []byte) ([]Message, bool) {
	d := tooljson.NewDecoder(data)
	if d.Null() {
		d.End()
		return nil, d.Err() == nil
	}
	if !d.Array() {
		return nil, false
	}
	msgs := make([]Message, 0, 8)
	for d.Elem() {
		var m Message
		if !decodeMessage(&d, &m) {
			return nil, false
		}
		msgs = append(msgs, m)
	}
	d.End()
	return msgs, d.Err() == nil
}

// decodeMessage reads one message into the zero m; false means the input is left to encoding/json. Null leaves
// m empty, as encoding/json does.
func decodeMessage(d *tooljson.Decoder, m *Message) bool {
	if d.Null() {
		return true
	}
	if !d.Object() {
		return false
	}
	var seen uint8
	for {
		key, ok := d.Field()
		if !ok {
			break
		}
		var bit uint8
		switch string(key) {
		case "role":
			bit = 1
			if !d.Null() {
				m.Role = decodeRole(d.StringBytes())
			}
		case "author_name":
			bit = 2
			if !d.Null() {
				m.AuthorName = d.String()
			}
		case "parts":
			bit = 4
			if d.Null() || !d.Array() {
				break
			}
			for d.Elem() {
				var w wirePart
				if !decodeWirePart(d, &w) {
					return false
				}
				p, err := decodePartFast(&w)
				if err != nil {
					return false
				}
				m.Parts = append(m.Parts, p)
			}
		default:
			if foldsTo(key, messageKeys) {
				return false
			}
			d.Skip()
		}
		if seen&bit != 0 {
			return false // repeated key: encoding/json's merging is left to it
		}
		seen |= bit
	}
	return d.Err() == nil
}

// decodeRole returns the common roles as constants, saving their copies.
func decodeRole(b []byte) Role {
	switch string(b) {
	case "user":
		return RoleUser
	case "assistant":
		return RoleAssistant
	case "system":
		return RoleSystem
	case "tool":
		return RoleTool
	}
	return Role(b)
}

// decodeWirePart reads one part (or a request's call) into the zero w; false means the input is left to
// encoding/json.
func decodeWirePart(d *tooljson.Decoder, w *wirePart) bool {
	if d.Null() {
		return true
	}
	if !d.Object() {
		return false
	}
	var seen uint64
	for {
		key, ok := d.Field()
		if !ok {
			break
		}
		var bit uint64
		switch string(key) {
		case "type":
			bit = 1 << 0
			if !d.Null() {
				w.Type = decodeType(d.StringBytes())
			}
		case "text":
			bit = 1 << 1
			readString(d, &w.Text)
		case "id":
			bit = 1 << 2
			readString(d, &w.ID)
		case "name":
			bit = 1 << 3
			readString(d, &w.Name)
		case "arguments":
			bit = 1 << 4
			w.Arguments = d.Raw()
		case "arguments_text":
			bit = 1 << 5
			w.ArgumentsText = readText(d)
		case "call_id":
			bit = 1 << 6
			readString(d, &w.CallID)
		case "result":
			bit = 1 << 7
			w.Result = d.Raw()
		case "result_text":
			bit = 1 << 8
			w.ResultText = readText(d)
		case "error":
			bit = 1 << 9
			readString(d, &w.Error)
		case "files":
			bit = 1 << 30
			if d.Null() {
				break
			}
			if !d.Array() {
				return false
			}
			for d.Elem() {
				var f wirePart
				if !decodeWirePart(d, &f) {
					return false
				}
				w.Files = append(w.Files, f)
			}
		case "call":
			bit = 1 << 10
			if !d.Null() {
				w.Call = new(wirePart)
				if !decodeWirePart(d, w.Call) {
					return false
				}
			}
		case "tool_id":
			bit = 1 << 11
			readString(d, &w.ToolID)
		case "request_id":
			bit = 1 << 12
			readString(d, &w.RequestID)
		case "approved":
			bit = 1 << 13
			if !d.Null() {
				w.Approved = d.Bool()
			}
		case "reason":
			bit = 1 << 14
			readString(d, &w.Reason)
		case "always":
			bit = 1 << 15
			if !d.Null() {
				w.Always = decodeAlways(d.StringBytes())
			}
		case "input_tokens":
			bit = 1 << 16
			readInt(d, &w.InputTokens)
		case "output_tokens":
			bit = 1 << 17
			readInt(d, &w.OutputTokens)
		case "total_tokens":
			bit = 1 << 18
			readInt(d, &w.TotalTokens)
		case "provider":
			bit = 1 << 19
			readString(d, &w.Provider)
		case "data":
			bit = 1 << 20
			w.Data = d.Raw()
		case "data_text":
			bit = 1 << 21
			w.DataText = readText(d)
		case "cache_read_tokens":
			bit = 1 << 22
			readInt(d, &w.CacheReadTokens)
		case "cache_write_tokens":
			bit = 1 << 23
			readInt(d, &w.CacheWriteTokens)
		case "reasoning_tokens":
			bit = 1 << 24
			readInt(d, &w.ReasoningTokens)
		case "media_type":
			bit = 1 << 25
			readString(d, &w.MediaType)
		case "bytes":
			bit = 1 << 26
			if !d.Null() {
				b, ok := decodeBase64(d.StringBytes())
				if !ok {
					return false // encoding/json words the error
				}
				w.Bytes = b
			}
		case "url":
			bit = 1 << 27
			readString(d, &w.URL)
		case "encrypted":
			bit = 1 << 28
			readString(d, &w.Encrypted)
		case "signature":
			bit = 1 << 29
			readString(d, &w.Signature)
		case "item_id":
			bit = 1 << 31
			readString(d, &w.ItemID)
		case "index":
			bit = 1 << 32
			readInt(d, &w.Index)
		default:
			if foldsTo(key, partKeys) {
				return false
			}
			d.Skip()
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return d.Err() == nil
}

// readString reads a string field; null leaves it alone, as encoding/json does.
func readString(d *tooljson.Decoder, s *string) {
	if !d.Null() {
		*s = d.String()
	}
}

// readInt reads an integer field; null leaves it alone.
func readInt(d *tooljson.Decoder, v *int64) {
	if !d.Null() {
		*v = d.Int(64)
	}
}

// decodeBase64 decodes a []byte field as encoding/json does: standard base64, an empty string an empty slice.
func decodeBase64(s []byte) ([]byte, bool) {
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, false
	}
	return b[:n], true
}

// readText reads a *_text field: null is absent.
func readText(d *tooljson.Decoder) *string {
	if d.Null() {
		return nil
	}
	s := d.String()
	return &s
}

// decodeType returns the known part types as constants, saving their copies.
func decodeType(b []byte) string {
	for _, t := range partTypes {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}

var partTypes = [...]string{"text", "tool_call", "tool_result", "approval_request", "approval_answer", "usage", "raw",
	"file", "reasoning"}

// decodeAlways returns the known scopes as constants, saving their copies.
func decodeAlways(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "tool":
		return "tool"
	case "arguments":
		return "arguments"
	}
	return string(b)
}

// decodePartFast is decodePart for a wirePart read by decodeWirePart, whose raw values are already copies of
// the input and are kept rather than copied again.
func decodePartFast(w *wirePart) (Part, error) {
	switch w.Type {
	case "tool_call":
		return ToolCall{ID: w.ID, Name: w.Name, Arguments: unembedOwned(w.Arguments, w.ArgumentsText), Provider: w.Provider, ItemID: w.ItemID}, nil
	case "tool_result":
		files, err := decodeFiles(w.Files)
		if err != nil {
			return nil, err
		}
		return ToolResult{CallID: w.CallID, Result: unembedOwned(w.Result, w.ResultText), Error: w.Error, Files: files}, nil
	case "approval_request":
		if w.Call == nil {
			return nil, errors.New("approval_request without a call")
		}
		c := w.Call
		return ApprovalRequest{ID: w.ID, Call: ToolCall{ID: c.ID, Name: c.Name, Arguments: unembedOwned(c.Arguments, c.ArgumentsText),
			Provider: c.Provider, ItemID: c.ItemID}, ToolID: w.ToolID}, nil
	case "raw":
		return Raw{Provider: w.Provider, Data: unembedOwned(w.Data, w.DataText)}, nil
	}
	return decodePart(w)
}

func unembedOwned(b json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	return b
}

// messageSize estimates the length of m's encoding, to size the buffer once.
func messageSize(m *Message) int {
	n := 32 + len(m.Role) + len(m.AuthorName)
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			n += 24 + len(p.Text)
		case ToolCall:
			n += 64 + len(p.ID) + len(p.Name) + len(p.Arguments) + len(p.Provider) + len(p.ItemID)
		case ToolResult:
			n += 64 + len(p.CallID) + len(p.Result) + len(p.Error)
			for _, f := range p.Files {
				n += 64 + len(f.MediaType) + len(f.Name) + len(f.URL) + base64.StdEncoding.EncodedLen(len(f.Data))
			}
		case ApprovalRequest:
			n += 128 + len(p.ID) + len(p.ToolID) + len(p.Call.ID) + len(p.Call.Name) + len(p.Call.Arguments)
		case Raw:
			n += 48 + len(p.Provider) + len(p.Data)
		case File:
			n += 64 + len(p.MediaType) + len(p.Name) + len(p.URL) + base64.StdEncoding.EncodedLen(len(p.Data))
		case Reasoning:
			n += 96 + len(p.Provider) + len(p.ID) + len(p.Text) + len(p.Encrypted) + len(p.Signature)
		default:
			n += 96
		}
	}
	return n
}

// appendMessage appends m's encoding to b, byte for byte what encoding/json wrote for wireMessage.
func appendMessage(b []byte, m *Message) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = tooljson.AppendString(b, string(m.Role))
	if m.AuthorName != "" {
		b = append(b, `,"author_name":`...)
		b = tooljson.AppendString(b, m.AuthorName)
	}
	b = append(b, `,"parts":[`...)
	for i, p := range m.Parts {
		w, err := encodePart(p)
		if err != nil {
			return b, fmt.Errorf("part %d: %w", i, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWirePart(b, &w)
	}
	return append(b, "]}"...), nil
}

// appendWirePart appends w's fields in the struct's order, leaving out the empty ones as omitempty does.
func appendWirePart(b []byte, w *wirePart) []byte {
	b = append(b, `{"type":`...)
	b = tooljson.AppendString(b, w.Type)
	b = appendStringField(b, `,"text":`, w.Text)
	b = appendStringField(b, `,"id":`, w.ID)
	b = appendStringField(b, `,"name":`, w.Name)
	b = appendRawField(b, `,"arguments":`, w.Arguments)
	b = appendTextField(b, `,"arguments_text":`, w.ArgumentsText)
	b = appendStringField(b, `,"call_id":`, w.CallID)
	b = appendRawField(b, `,"result":`, w.Result)
	b = appendTextField(b, `,"result_text":`, w.ResultText)
	b = appendStringField(b, `,"error":`, w.Error)
	if len(w.Files) > 0 {
		b = append(b, `,"files":[`...)
		for i := range w.Files {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendWirePart(b, &w.Files[i])
		}
		b = append(b, ']')
	}
	if w.Call != nil {
		b = append(b, `,"call":`...)
		b = appendWirePart(b, w.Call)
	}
	b = appendStringField(b, `,"tool_id":`, w.ToolID)
	b = appendStringField(b, `,"request_id":`, w.RequestID)
	if w.Approved {
		b = append(b, `,"approved":true`...)
	}
	b = appendStringField(b, `,"reason":`, w.Reason)
	b = appendStringField(b, `,"always":`, w.Always)
	b = appendIntField(b, `,"input_tokens":`, w.InputTokens)
	b = appendIntField(b, `,"output_tokens":`, w.OutputTokens)
	b = appendIntField(b, `,"total_tokens":`, w.TotalTokens)
	b = appendIntField(b, `,"cache_read_tokens":`, w.CacheReadTokens)
	b = appendIntField(b, `,"cache_write_tokens":`, w.CacheWriteTokens)
	b = appendIntField(b, `,"reasoning_tokens":`, w.ReasoningTokens)
	b = appendStringField(b, `,"provider":`, w.Provider)
	b = appendRawField(b, `,"data":`, w.Data)
	b = appendTextField(b, `,"data_text":`, w.DataText)
	b = appendStringField(b, `,"media_type":`, w.MediaType)
	if len(w.Bytes) > 0 {
		b = append(b, `,"bytes":"`...)
		b = base64.StdEncoding.AppendEncode(b, w.Bytes)
		b = append(b, '"')
	}
	b = appendStringField(b, `,"url":`, w.URL)
	b = appendStringField(b, `,"encrypted":`, w.Encrypted)
	b = appendStringField(b, `,"signature":`, w.Signature)
	b = appendStringField(b, `,"item_id":`, w.ItemID)
	b = appendIntField(b, `,"index":`, w.Index)
	return append(b, '}')
}

func appendStringField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return tooljson.AppendString(append(b, key...), s)
}

func appendTextField(b []byte, key string, s *string) []byte {
	if s == nil {
		return b
	}
	return tooljson.AppendString(append(b, key...), *s)
}

func appendIntField(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return tooljson.AppendInt(append(b, key...), v)
}

// appendRawField appends raw, which embed found valid, compacted as encoding/json writes it. AppendRaw writes
// null for what it cannot check (values nested deeper than tooljson.MaxDepth); those go to encoding/json.
func appendRawField(b []byte, key string, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return b
	}
	b = append(b, key...)
	n := len(b)
	b = tooljson.AppendRaw(b, raw)
	if string(b[n:]) == "null" && !tooljson.RawOK(raw) {
		if out, err := json.Marshal(raw); err == nil {
			b = append(b[:n], out...)
		}
	}
	return b
}
