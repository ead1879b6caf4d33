package agenthttp_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage/memory"
)

var pixel = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 1, 2, 3}

// thinker records the user's last message and answers with signed reasoning, then text.
type thinker struct {
	mu   sync.Mutex
	seen []chat.Message
}

func (m *thinker) client() chat.Client {
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		m.mu.Lock()
		m.seen = append(m.seen, msgs[len(msgs)-1])
		m.mu.Unlock()
		return &chat.Response{FinishReason: chat.FinishStop, Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "anthropic", Text: "The user sent a picture.", Signature: "secret-signature"},
			chat.Text{Text: "A printer."}}}}}, nil
	})
}

func (m *thinker) last() chat.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[len(m.seen)-1]
}

func withThinker(m *thinker) envOption {
	return func(cfg *agent.Config, _ *agenthttp.Options) { cfg.Client = m.client() }
}

// TestFileInput checks that each protocol takes images and documents from the user, and streams the model's
// reasoning as its own reasoning events, without the signature.
func TestFileInput(t *testing.T) {
	m := &thinker{}
	e := newEnv(t, memory.New(), withThinker(m))
	b64 := base64.StdEncoding.EncodeToString(pixel)
	png := chat.File{MediaType: "image/png", Data: pixel, Name: "shot.png"}

	t.Run("native", func(t *testing.T) {
		is := is.New(t)
		resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "What is this?",
			"files": []any{map[string]any{"media_type": "image/png", "data": b64, "name": "shot.png"},
				map[string]any{"media_type": "application/pdf", "url": "https://example.com/manual.pdf"}}}})
		is.Equal(resp.status, http.StatusCreated)
		is.Equal(m.last().Parts, []chat.Part{chat.Text{Text: "What is this?"}, png,
			chat.File{MediaType: "application/pdf", URL: "https://example.com/manual.pdf"}})
	})

	t.Run("ai sdk", func(t *testing.T) {
		is := is.New(t)
		resp := e.do(req{method: "POST", path: "/agents/Desk/ui-message-stream", token: tokenA, body: map[string]any{"id": "chat-f",
			"messages": []any{map[string]any{"id": "u1", "role": "user", "parts": []any{
				map[string]any{"type": "text", "text": "What is this?"},
				map[string]any{"type": "file", "mediaType": "image/png", "filename": "shot.png", "url": "data:image/png;base64," + b64}}}}}})
		is.Equal(resp.status, http.StatusOK)
		is.Equal(m.last().Parts, []chat.Part{chat.Text{Text: "What is this?"}, png})
		cs, done := uiChunks(t, resp.body)
		is.True(done)
		types := strings.Join(chunkTypes(cs), ",")
		is.True(strings.Contains(types, "start-step,reasoning-start,reasoning-delta,reasoning-delta,reasoning-delta,reasoning-delta,reasoning-delta,reasoning-end,text-start"))
		var thought string
		for _, c := range cs {
			if c["type"] == "reasoning-delta" {
				thought += c["delta"].(string)
			}
		}
		is.Equal(thought, "The user sent a picture.")
		is.True(!strings.Contains(string(resp.body), "secret-signature")) // the signature stays on the server
	})

	t.Run("ag-ui", func(t *testing.T) {
		is := is.New(t)
		resp := e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA, header: map[string]string{"Accept": "text/event-stream"},
			body: map[string]any{"threadId": "t-f", "runId": "r-1", "messages": []any{map[string]any{"id": "u1", "role": "user", "content": []any{
				map[string]any{"type": "text", "text": "What is this?"},
				map[string]any{"type": "image", "source": map[string]any{"type": "data", "value": b64, "mimeType": "image/png"}, "metadata": map[string]any{"filename": "shot.png"}},
				map[string]any{"type": "document", "source": map[string]any{"type": "url", "value": "https://example.com/manual.pdf", "mimeType": "application/pdf"}}}}}}})
		is.Equal(resp.status, http.StatusOK)
		is.Equal(m.last().Parts, []chat.Part{chat.Text{Text: "What is this?"}, png,
			chat.File{MediaType: "application/pdf", URL: "https://example.com/manual.pdf"}})
		var types []string
		var thought string
		for _, ev := range aguiEvents(t, resp.body) {
			typ := ev["type"].(string)
			if strings.HasPrefix(typ, "REASONING") || strings.HasPrefix(typ, "TEXT_MESSAGE") {
				if len(types) == 0 || types[len(types)-1] != typ {
					types = append(types, typ)
				}
			}
			if typ == "REASONING_MESSAGE_CONTENT" {
				thought += ev["delta"].(string)
			}
		}
		is.Equal(types, []string{"REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
			"REASONING_END", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"})
		is.Equal(thought, "The user sent a picture.")
		is.True(!strings.Contains(string(resp.body), "secret-signature"))
	})
}

// TestFileInputRefused checks that files a client cannot give are refused, naming the field, before any run.
func TestFileInputRefused(t *testing.T) {
	m := &thinker{}
	e := newEnv(t, memory.New(), withThinker(m))
	for _, tt := range []struct {
		name    string
		file    map[string]any
		pointer string
	}{
		{"not base64", map[string]any{"media_type": "image/png", "data": "not base64!"}, "/files/0/data"},
		{"bytes without a type", map[string]any{"data": "iVBORw0KGgo="}, "/files/0/media_type"},
		{"not a media type", map[string]any{"media_type": "png", "data": "iVBORw0KGgo="}, "/files/0/media_type"},
		{"plain http", map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, "/files/0/url"},
		{"a local file", map[string]any{"url": "file:///etc/passwd"}, "/files/0/url"},
		{"both", map[string]any{"media_type": "image/png", "data": "iVBORw0KGgo=", "url": "https://example.com/a.png"}, "/files/0"},
		{"neither", map[string]any{"name": "a.png"}, "/files/0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			resp := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "x", "files": []any{tt.file}}})
			is.Equal(resp.status, http.StatusUnprocessableEntity)
			p := resp.problem(t)
			is.Equal(p.Errors[0].Pointer, tt.pointer)
			is.Equal(len(m.seen), 0) // no run
		})
	}
}
