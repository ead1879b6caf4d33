package telemetry

import (
	"encoding/json"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// The JSON shapes of the conventions' content attributes: messages with a role and typed parts.
type contentMessage struct {
	Role         string        `json:"role"`
	Name         string        `json:"name,omitempty"`
	Parts        []contentPart `json:"parts"`
	FinishReason string        `json:"finish_reason,omitempty"`
}

type contentPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  json.RawMessage `json:"response,omitempty"`
	Modality  string          `json:"modality,omitempty"`
	MimeType  string          `json:"mime_type,omitempty"`
	URI       string          `json:"uri,omitempty"`
}

// messagesJSON renders msgs as gen_ai.input.messages or, with a finish reason, gen_ai.output.messages. Usage and
// approval parts are bookkeeping of the run, not content, and are left out; reasoning shows its text, never its
// signature or encrypted form; a file shows its URL, or its media type without its bytes.
func messagesJSON(msgs []chat.Message, finish chat.FinishReason) string {
	out := make([]contentMessage, 0, len(msgs))
	for _, m := range msgs {
		cm := contentMessage{Role: string(m.Role), Name: m.AuthorName, Parts: []contentPart{}, FinishReason: string(finish)}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				cm.Parts = append(cm.Parts, contentPart{Type: "text", Content: p.Text})
			case chat.ToolCall:
				cm.Parts = append(cm.Parts, contentPart{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: jsonOrString(p.Arguments)})
			case chat.ToolResult:
				resp := jsonOrString(p.Result)
				if p.Error != "" {
					resp = jsonOrString([]byte(p.Error))
				}
				cm.Parts = append(cm.Parts, contentPart{Type: "tool_call_response", ID: p.CallID, Response: resp})
			case chat.Reasoning:
				if p.Text != "" {
					cm.Parts = append(cm.Parts, contentPart{Type: "reasoning", Content: p.Text})
				}
			case chat.File:
				part := contentPart{Type: "blob", Modality: modality(p.MediaType), MimeType: p.MediaType}
				if p.URL != "" {
					part.Type, part.URI = "uri", p.URL
				}
				cm.Parts = append(cm.Parts, part)
			}
		}
		out = append(out, cm)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// modality is the conventions' modality of a media type.
func modality(mediaType string) string {
	switch {
	case mediaType == "", strings.HasPrefix(mediaType, "image/"):
		return "image"
	case strings.HasPrefix(mediaType, "audio/"):
		return "audio"
	case strings.HasPrefix(mediaType, "video/"):
		return "video"
	}
	return "document"
}

// instructionsJSON renders gen_ai.system_instructions.
func instructionsJSON(text string) string {
	b, _ := json.Marshal([]contentPart{{Type: "text", Content: text}})
	return string(b)
}

// jsonOrString embeds b when it is valid JSON, and as a JSON string otherwise (malformed arguments).
func jsonOrString(b []byte) json.RawMessage {
	if len(b) > 0 && json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}
