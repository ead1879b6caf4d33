package agenthttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/storage/memory"
)

// FuzzRequestBodies sends arbitrary bodies to every endpoint that decodes one: the handler answers each with a
// success or a problem of the client's (4xx), never a server error, and a problem is always problem+json.
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"text":"hello"}`, `{"text":"close 4711"}`, `{"approvals":[{"request_id":"x","approved":true,"always":"tool"}]}`,
		`{"text":"hi","mode":"plan"}`, `{"text":"x","agent":"Desk"}`, `{}`, `[]`, `null`, `"text"`, `{"text":`, `{"text":"\u0000"}`,
		`{"text":"\ud800"}`, "{\"text\":\"\xff\"}", `{"model":"m","tools":{"search_tickets":{"limit":5}}}`,
		`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}]}`,
		`{"id":"c","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}]}]}`,
		strings.Repeat(`{"a":`, 200) + strings.Repeat(`}`, 200),
	} {
		for route := range 6 {
			f.Add(uint8(route), []byte(s))
		}
	}
	e := newEnv(f, memory.New())
	close(e.model.release) // no input waits
	id := e.create(tokenA, "hello").ConversationID
	routes := []struct{ method, path string }{
		{"POST", "/conversations"},
		{"POST", "/conversations/" + id + "/runs"},
		{"POST", "/conversations/" + id + "/steering"},
		{"PUT", "/agents/Desk/settings"},
		{"POST", "/agents/Desk/agui"},
		{"POST", "/agents/Desk/ui-message-stream"},
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		rt := routes[int(route)%len(routes)]
		r := httptest.NewRequest(rt.method, rt.path, strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+tokenA)
		r.Header.Set("If-None-Match", "*")
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", rt.method, rt.path, body, w.Code, w.Body)
		}
		if w.Code >= 400 {
			if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("%s %s %q: %d with content type %q", rt.method, rt.path, body, w.Code, ct)
			}
			var p map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p["type"] == nil {
				t.Fatalf("%s %s %q: problem %s", rt.method, rt.path, body, w.Body)
			}
		}
		if w.Code == http.StatusCreated && rt.path == "/agents/Desk/settings" {
			// Let the next input create the settings again.
			_ = e.store.DeleteSettings(r.Context(), tenantA, "Desk")
		}
	})
}
