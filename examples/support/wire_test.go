package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// offlineServer serves the offline model in OpenAI's Chat Completions wire format, so that the eval cassettes
// can be recorded from it through the real SDK when no API key is at hand. It reads what the model needs from
// each request (the messages, the calls and their results, the names of the tools offered) and answers with a
// completion. A tool message whose content is not JSON is read as the tool's error, since the wire format
// carries both as the same text.
func offlineServer(t *testing.T) *httptest.Server {
	model := offlineModel()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msgs, opts, err := readCompletionRequest(r)
		if err != nil {
			http.Error(w, `{"error":{"message":`+quote(err.Error())+`,"type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		resp, err := model.Respond(r.Context(), msgs, opts)
		if err != nil {
			http.Error(w, `{"error":{"message":`+quote(err.Error())+`,"type":"server_error"}}`, http.StatusInternalServerError)
			return
		}
		mu.Lock()
		n++
		id := fmt.Sprintf("chatcmpl-offline-%d", n)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(completion(id, opts.Model, resp))
	}))
	t.Cleanup(srv.Close)
	return srv
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []wireCall      `json:"tool_calls"`
}

type wireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// readCompletionRequest reads a Chat Completions request as the chat messages and options it was made from.
func readCompletionRequest(r *http.Request) ([]chat.Message, *chat.Options, error) {
	var req struct {
		Model    string        `json:"model"`
		Messages []wireMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return nil, nil, fmt.Errorf("the body is not a completion request: %w", err)
	}
	opts := &chat.Options{Model: req.Model}
	for _, tl := range req.Tools {
		opts.Tools = append(opts.Tools, &toolset.Tool{Name: tl.Function.Name, Description: tl.Function.Description})
	}
	var msgs []chat.Message
	for _, m := range req.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			msgs = append(msgs, chat.SystemText(text))
		case "user":
			msgs = append(msgs, chat.UserText(text))
		case "assistant":
			out := chat.Message{Role: chat.RoleAssistant}
			if text != "" {
				out.Parts = append(out.Parts, chat.Text{Text: text})
			}
			for _, c := range m.ToolCalls {
				out.Parts = append(out.Parts, chat.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
			}
			msgs = append(msgs, out)
		case "tool":
			res := chat.ToolResult{CallID: m.ToolCallID}
			if json.Valid([]byte(text)) {
				res.Result = json.RawMessage(text)
			} else {
				res.Error = text
			}
			msgs = append(msgs, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{res}})
		default:
			return nil, nil, fmt.Errorf("a message of role %q", m.Role)
		}
	}
	return msgs, opts, nil
}

// contentText returns a message's content: a string, or the text of its parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

// completion renders the model's response as a Chat Completions answer.
func completion(id, model string, resp *chat.Response) map[string]any {
	message := map[string]any{"role": "assistant", "content": nil}
	var calls []any
	text := ""
	for _, m := range resp.Messages {
		text += m.Text()
		for _, c := range m.ToolCalls() {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(c.Arguments)}})
		}
	}
	finish := "stop"
	if text != "" {
		message["content"] = text
	}
	if len(calls) > 0 {
		message["tool_calls"] = calls
		finish = "tool_calls"
	}
	u := resp.Usage
	return map[string]any{
		"id": id, "object": "chat.completion", "created": 1764720000, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens,
			"total_tokens": u.InputTokens + u.OutputTokens},
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
