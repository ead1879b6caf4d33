package agenta2a_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestBadInput: every malformed or unserviceable request gets the protocol's JSON-RPC error, never a 500.
func TestBadInput(t *testing.T) {
	e := newEnv(t, memory.New(), nil)
	done := send(t, e.client(tokenA), "", a2a.TextPart{Text: "hello"})
	msg := func(parts string, extra string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":` +
			parts + extra + `}}}`
	}
	text := `[{"kind":"text","text":"hi"}]`
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct {
		name, body string
		token      string
		status     int
		code       float64
	}{
		{name: "malformed JSON", body: `{"jsonrpc":"2.0","id":1,"method":"message/send"`, code: -32700},
		{name: "deeply nested", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":` + deep + `}`, code: -32700},
		{name: "not JSON-RPC 2.0", body: `{"jsonrpc":"1.0","id":1,"method":"tasks/get","params":{"id":"x"}}`, code: -32600},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`, code: -32601},
		{name: "params of the wrong type", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":[1]}`, code: -32700},
		{name: "no message", body: `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, code: -32602},
		{name: "an agent's message", body: strings.Replace(msg(text, ""), `"user"`, `"agent"`, 1), code: -32602},
		{name: "no parts", body: msg(`[]`, ""), code: -32602},
		{name: "empty text", body: msg(`[{"kind":"text","text":""}]`, ""), code: -32602},
		{name: "a data part of another kind", body: msg(`[{"kind":"data","data":{"x":1}}]`, ""), code: -32005},
		{name: "an answer without a request", body: msg(`[{"kind":"data","data":{"approval":{"approved":true}}}]`, `,"taskId":"`+string(done.ID)+`"`), code: -32602},
		{name: "an answer without a decision", body: msg(`[{"kind":"data","data":{"approval":{"requestId":"r"}}}]`, `,"taskId":"`+string(done.ID)+`"`), code: -32602},
		{name: "a standing denial", body: msg(`[{"kind":"data","data":{"approval":{"requestId":"r","approved":false,"always":"tool"}}}]`, `,"taskId":"`+string(done.ID)+`"`), code: -32602},
		{name: "an answer in a new task", body: msg(`[{"kind":"data","data":{"approval":{"requestId":"r","approved":true}}}]`, ""), code: -32602},
		{name: "bytes not base64", body: msg(`[{"kind":"file","file":{"bytes":"***","mimeType":"image/png"}}]`, ""), code: -32602},
		{name: "bytes without a media type", body: msg(`[{"kind":"file","file":{"bytes":"aGk="}}]`, ""), code: -32602},
		{name: "a plain http URL", body: msg(`[{"kind":"file","file":{"uri":"http://example.com/a.png"}}]`, ""), code: -32602},
		{name: "a file with neither", body: msg(`[{"kind":"file","file":{}}]`, ""), code: -32700},
		{name: "a malformed task id", body: msg(text, `,"taskId":"a~b"`), code: -32001},
		{name: "an unknown task", body: msg(text, `,"taskId":"nothing-here"`), code: -32001},
		{name: "a completed task", body: msg(text, `,"taskId":"`+string(done.ID)+`"`), code: -32602},
		{name: "a context id with the separator", body: msg(text, `,"contextId":"a~1"`), code: -32602},
		{name: "another context than the task's", body: msg(text, `,"taskId":"`+string(done.ID)+`","contextId":"other"`), code: -32602},
		{name: "get an unknown task", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nothing-here"}}`, code: -32001},
		{name: "cancel a completed task", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"` + string(done.ID) + `"}}`, code: -32002},
		{name: "push notifications", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"x"}}`, code: -32003},
		{name: "the extended card", body: `{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`, code: -32007},
		{name: "oversized", body: msg(`[{"kind":"text","text":"`+strings.Repeat("a", 70<<10)+`"}]`, ""), code: -32700},
		{name: "not authenticated", body: msg(text, ""), token: "forged", status: http.StatusUnauthorized, code: -32600},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			token := c.token
			if token == "" {
				token = tokenA
			}
			status, out := e.rpc(token, c.body)
			want := c.status
			if want == 0 {
				want = http.StatusOK
			}
			is.Equal(status, want)
			errObj, ok := out["error"].(map[string]any)
			is.True(ok)
			is.Equal(errObj["code"], c.code)
		})
	}
}

// TestFiles sends an image's bytes and a document's URL as parts; the model reads both, and the task's history
// gives them back as stored.
func TestFiles(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), nil)
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake"))
	task := send(t, e.client(tokenA), "",
		a2a.TextPart{Text: "look"},
		a2a.FilePart{File: a2a.FileBytes{FileMeta: a2a.FileMeta{MimeType: "image/png", Name: "shot.png"}, Bytes: png}},
		a2a.FilePart{File: a2a.FileURI{FileMeta: a2a.FileMeta{MimeType: "application/pdf"}, URI: "https://example.com/a.pdf"}})
	is.Equal(task.Status.State, a2a.TaskStateCompleted)
	is.Equal(task.Artifacts[0].Parts[0].(a2a.TextPart).Text, "You said: look, with 2 file(s)")
	user := task.History[0]
	is.Equal(len(user.Parts), 3)
	is.Equal(user.Parts[1].(a2a.FilePart).File, a2a.FileBytes{FileMeta: a2a.FileMeta{MimeType: "image/png", Name: "shot.png"}, Bytes: png})
	is.Equal(user.Parts[2].(a2a.FilePart).File.(a2a.FileURI).URI, "https://example.com/a.pdf")
}
