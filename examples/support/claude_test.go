package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// claudeServer answers streamed Messages API requests with the blocks of each answer in turn, in the API's
// event format, and records the requests' bodies.
func claudeServer(t *testing.T, answers ...[]map[string]any) (*httptest.Server, func() []map[string]any) {
	return recordingServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n >= len(answers) {
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"no more answers"}}`, 500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(name string, v map[string]any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		}
		event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n),
			"type": "message", "role": "assistant", "model": "claude-test", "content": []any{}, "stop_reason": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
		stop := "end_turn"
		for i, b := range answers[n] {
			if b["type"] == "tool_use" {
				stop = "tool_use"
				input, _ := json.Marshal(b["input"])
				event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
					"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
			} else {
				event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
					"content_block": map[string]any{"type": "text", "text": ""}})
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
			}
			event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
		event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop},
			"usage": map[string]any{"output_tokens": 20}})
		event("message_stop", map[string]any{"type": "message_stop"})
	})
}

func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// TestRunOnClaude runs plan mode on Claude, as the program does with ANTHROPIC_API_KEY set, against a local
// server that speaks the Messages API, and checks what reached it.
func TestRunOnClaude(t *testing.T) {
	is := is.New(t)
	srv, requests := claudeServer(t,
		[]map[string]any{toolUse("toolu_1", "get_ticket", map[string]any{"number": 4712})},
		[]map[string]any{toolUse("toolu_2", "exit_plan_mode", map[string]any{"plan": "1. Close 4712."})},
		[]map[string]any{toolUse("toolu_3", "close_ticket", map[string]any{"number": 4712, "reason": "Fixed."})},
		[]map[string]any{{"type": "text", "text": "Ticket 4712 is closed."}},
	)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("ANTHROPIC_MODEL", "claude-test")
	o := options{planOnly: true, seed: 7}
	o.provider, o.model = provider()
	is.Equal(o.provider, "anthropic")

	var out strings.Builder
	is.NoErr(run(context.Background(), o, strings.NewReader("y\ny\n"), &out, true))
	got := out.String()
	for _, w := range []string{"ANTHROPIC_API_KEY is set: using " + srv.URL + " (claude-test)", "plan     1. Close 4712.", "support  Ticket 4712 is closed.", "ticket   #4712 is closed: Fixed."} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q\ntranscript:\n%s", w, got)
		}
	}
	reqs := requests()
	is.Equal(len(reqs), 4)
	is.Equal(reqs[0]["model"], "claude-test")
	var tools []string
	for _, tool := range reqs[0]["tools"].([]any) {
		tools = append(tools, tool.(map[string]any)["name"].(string))
	}
	is.Equal(strings.Join(tools, ","), "search_tickets,get_ticket,exit_plan_mode") // plan mode: nothing that changes a ticket
	last, _ := json.Marshal(reqs[3]["messages"])
	is.True(strings.Contains(string(last), `"tool_use_id":"toolu_3"`)) // the close call's result went back
}
