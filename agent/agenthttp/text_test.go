package agenthttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/storage"
)

// TestClientText checks that text a client sends is kept as sent or refused with a problem naming its place,
// never changed: invalid UTF-8, NUL and half a surrogate pair, in bodies of every protocol and in ids.
func TestClientText(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID
		bads := []struct {
			name, text, fault string // text is JSON string content, as the client writes it
		}{
			{"invalid UTF-8", "room-\xff", "not valid UTF-8"},
			{"NUL", `a\u0000b`, "NUL"},
			{"lone high surrogate", `a\ud800b`, "surrogate"},
			{"lone low surrogate", `a\udc00b`, "surrogate"},
			{"high surrogate at the end", `a\ud83d`, "surrogate"},
		}
		for _, b := range bads {
			t.Run(b.name, func(t *testing.T) {
				for _, c := range []struct {
					route, path, body, pointer string
				}{
					{"create", "/conversations", `{"text":"` + b.text + `"}`, "/text"},
					{"run", "/conversations/" + id + "/runs", `{"text":"` + b.text + `"}`, "/text"},
					{"steering", "/conversations/" + id + "/steering", `{"text":"` + b.text + `"}`, "/text"},
					{"answer id", "/conversations/" + id + "/runs", `{"approvals":[{"request_id":"` + b.text + `","approved":true}]}`, "/approvals/0/request_id"},
					{"agui message", "/agents/Desk/agui", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"` + b.text + `"}]}`, "/messages/0/content"},
					{"agui thread", "/agents/Desk/agui", `{"threadId":"` + b.text + `","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}]}`, "/threadId"},
					{"ui message", "/agents/Desk/ui-message-stream", `{"id":"c","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"` + b.text + `"}]}]}`, "/messages/0/parts/0/text"},
					{"ui chat id", "/agents/Desk/ui-message-stream", `{"id":"` + b.text + `","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}]}]}`, "/id"},
					{"key", "/conversations", `{"text":"hi","` + b.text + `":1}`, ""},
				} {
					is := is.New(t)
					before := e.entries(tenantA, id)
					resp := e.do(req{method: "POST", path: c.path, token: tokenA, body: c.body})
					is.Equal(resp.status, http.StatusBadRequest) // c.route
					p := resp.problem(t)
					is.Equal(p.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemBadRequest)
					is.Equal(len(p.Errors), 1)
					is.Equal(p.Errors[0].Pointer, c.pointer) // the problem names the field
					is.True(strings.Contains(p.Detail, b.fault))
					is.Equal(e.entries(tenantA, id), before) // nothing was stored
				}
			})
		}

		t.Run("ids in paths and queries", func(t *testing.T) {
			for _, c := range []struct{ method, path string }{
				{"GET", "/conversations/room-%FF"},
				{"GET", "/conversations/room-%00"},
				{"DELETE", "/conversations/room-%FE"},
				{"POST", "/conversations/room-%FF/runs"},
				{"POST", "/conversations/room-%FF/steering"},
				{"GET", "/conversations/room-%FF/events"},
				{"GET", "/agents/Desk%FF"},
				{"GET", "/agents/Desk%FF/settings"},
				{"POST", "/agents/Desk%FF/agui"},
				{"GET", "/background/job-%ED%A0%80"}, // a surrogate encoded as UTF-8
				{"GET", "/conversations?after=%FF"},
			} {
				is := is.New(t)
				var body any
				if c.method == "POST" {
					body = `{"text":"hi"}`
				}
				resp := e.do(req{method: c.method, path: c.path, token: tokenA, body: body})
				is.Equal(resp.status, http.StatusBadRequest) // c.path
				is.True(strings.Contains(resp.problem(t).Detail, "not valid text"))
			}
		})

		t.Run("valid text is kept as sent", func(t *testing.T) {
			is := is.New(t)
			text := `emoji \ud83d\ude00 and U+FFFD \ufffd and a tab\t`
			resp := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: `{"text":"` + text + `"}`})
			is.Equal(resp.status, http.StatusOK)
			var res runResult
			resp.json(t, &res)
			is.Equal(res.Text, "You said: emoji 😀 and U+FFFD \ufffd and a tab\t")
		})
	})
}
