package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// geminiServer answers generateContent and streamGenerateContent requests with the parts of each answer in turn,
// in the Gemini API's format (server-sent events for a stream), and records the requests' bodies.
func geminiServer(t *testing.T, answers ...[]map[string]any) (*httptest.Server, func() []map[string]any) {
	return recordingServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n >= len(answers) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"code":500,"message":"no more answers","status":"INTERNAL"}}`)
			return
		}
		answer := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": answers[n]}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
			"modelVersion":  "gemini-test", "responseId": fmt.Sprintf("resp-%d", n),
		}
		b, _ := json.Marshal(answer)
		if strings.Contains(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
}

func functionCall(name string, args map[string]any) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
}

// TestRunOnGemini runs plan mode on Gemini, as the program does with GEMINI_API_KEY set, against a local server
// that speaks the Gemini API, and checks what reached it.
func TestRunOnGemini(t *testing.T) {
	is := is.New(t)
	srv, requests := geminiServer(t,
		[]map[string]any{functionCall("get_ticket", map[string]any{"number": 4712})},
		[]map[string]any{functionCall("exit_plan_mode", map[string]any{"plan": "1. Close 4712."})},
		[]map[string]any{functionCall("close_ticket", map[string]any{"number": 4712, "reason": "Fixed."})},
		[]map[string]any{{"text": "Ticket 4712 is closed."}},
	)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "AIza-test")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL)
	t.Setenv("GEMINI_MODEL", "gemini-test")
	o := options{planOnly: true, seed: 7}
	o.provider, o.model = provider()
	is.Equal(o.provider, "gemini")

	var out strings.Builder
	is.NoErr(run(context.Background(), o, strings.NewReader("y\ny\n"), &out, true))
	got := out.String()
	for _, w := range []string{"GEMINI_API_KEY is set: using " + srv.URL + " (gemini-test)", "plan     1. Close 4712.", "support  Ticket 4712 is closed.", "ticket   #4712 is closed: Fixed."} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q\ntranscript:\n%s", w, got)
		}
	}
	reqs := requests()
	is.Equal(len(reqs), 4)
	var tools []string
	for _, d := range reqs[0]["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any) {
		tools = append(tools, d.(map[string]any)["name"].(string))
	}
	is.Equal(strings.Join(tools, ","), "search_tickets,get_ticket,exit_plan_mode") // plan mode: nothing that changes a ticket
	last, _ := json.Marshal(reqs[3]["contents"])
	is.True(strings.Contains(string(last), `"functionResponse":{"name":"close_ticket"`)) // the close call's result went back
}

// TestGeminiKeyNamed: the program names the variable it found Gemini's key in.
func TestGeminiKeyNamed(t *testing.T) {
	for _, c := range []struct{ gemini, google, want string }{
		{"AIza-a", "", "GEMINI_API_KEY"},
		{"", "AIza-b", "GOOGLE_API_KEY"},
		{"AIza-a", "AIza-b", "GOOGLE_API_KEY"}, // the one the SDK uses when both are set
	} {
		t.Run(c.want, func(t *testing.T) {
			t.Setenv("GEMINI_API_KEY", c.gemini)
			t.Setenv("GOOGLE_API_KEY", c.google)
			is.New(t).Equal(geminiKey(), c.want)
		})
	}
}
