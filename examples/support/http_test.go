package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/eval"
)

// TestServeHTTP serves the API as -http does, on the memory store and the offline model, and runs the approval
// story through it.
func TestServeHTTP(t *testing.T) {
	is := is.New(t)
	t.Setenv(envDatabaseURL, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, options{}, &out) }()
	defer func() {
		cancel()
		is.NoErr(<-done)
	}()
	base := "http://" + ln.Addr().String() + "/api"
	post := func(path, tenant string, body any) (*http.Response, map[string]any) {
		data, _ := json.Marshal(body)
		r, _ := http.NewRequest("POST", base+path, bytes.NewReader(data))
		r.Header.Set("Content-Type", "application/json")
		if tenant != "" {
			r.Header.Set(demoTenantHeader, tenant)
		}
		resp, err := http.DefaultClient.Do(r)
		is.NoErr(err)
		defer resp.Body.Close()
		var v map[string]any
		is.NoErr(json.NewDecoder(resp.Body).Decode(&v))
		return resp, v
	}

	resp, _ := post("/conversations", "", map[string]any{"text": "hello"})
	is.Equal(resp.StatusCode, http.StatusUnauthorized) // no tenant, no access
	resp, res := post("/conversations", "demo", map[string]any{"text": "Please close ticket 4711: the toner cartridge was replaced."})
	is.Equal(resp.StatusCode, http.StatusCreated)
	pending := res["pending"].([]any)
	is.Equal(len(pending), 1)
	id := res["conversation_id"].(string)
	resp, res = post("/conversations/"+id+"/runs", "demo", map[string]any{"approvals": []map[string]any{{"request_id": pending[0].(map[string]any)["id"], "approved": true}}})
	is.Equal(resp.StatusCode, http.StatusOK)
	is.Equal(res["text"], "Ticket 4711 is closed.")
	resp, _ = post("/conversations/"+id+"/runs", "other", map[string]any{"text": "hello"})
	is.Equal(resp.StatusCode, http.StatusNotFound) // another tenant's conversation
	is.True(strings.Contains(out.String(), "DEMO AUTHENTICATION"))

	// The dev UI is served beside the API, and its address printed.
	is.True(strings.Contains(out.String(), "Open the dev UI: http://"+ln.Addr().String()+"/dev/"))
	ui, err := http.Get("http://" + ln.Addr().String() + "/dev/")
	is.NoErr(err)
	ui.Body.Close()
	is.Equal(ui.StatusCode, http.StatusOK)
	is.True(strings.Contains(ui.Header.Get("Content-Security-Policy"), "default-src 'self'"))
	cfg, err := http.Get("http://" + ln.Addr().String() + "/dev/config.json")
	is.NoErr(err)
	var c map[string]any
	is.NoErr(json.NewDecoder(cfg.Body).Decode(&c))
	cfg.Body.Close()
	is.Equal(c, map[string]any{"api": "/api", "tenant_header": demoTenantHeader, "eval_cases": true})

	// The closed ticket's conversation, saved as an eval case: the demo tenant's, with the approval it waited on.
	r, _ := http.NewRequest("GET", base+"/conversations/"+id+"/eval-case?name=close_4711", nil)
	r.Header.Set(demoTenantHeader, "demo")
	saved, err := http.DefaultClient.Do(r)
	is.NoErr(err)
	data, err := io.ReadAll(saved.Body)
	saved.Body.Close()
	is.NoErr(err)
	is.Equal(saved.StatusCode, http.StatusOK)
	is.Equal(saved.Header.Get("Content-Disposition"), "attachment; filename=close_4711.json")
	made, err := eval.ParseCase(data)
	is.NoErr(err)
	is.Equal(made.SettingsID, "demo")
	is.Equal(*made.Expect.Approvals, []string{"close_ticket"})
	is.Equal(made.Expect.Answer.Reference, "Ticket 4711 is closed.")
}

func TestServeHTTPLoopbackOnly(t *testing.T) {
	is := is.New(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:8080", "example.com:80"} {
		err := serveHTTP(context.Background(), addr, options{}, &bytes.Buffer{})
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), "loopback")) // addr
	}
}

func TestDemoAuthenticate(t *testing.T) {
	is := is.New(t)
	r := httptest.NewRequest("GET", "/api/agents", nil)
	r.Header.Set(demoTenantHeader, "demo")
	r.RemoteAddr = "192.0.2.7:50000"
	_, err := demoAuthenticate(r)
	is.True(errors.Is(err, agenthttp.ErrUnauthenticated)) // not a loopback client
	r.RemoteAddr = "[::1]:50000"
	p, err := demoAuthenticate(r)
	is.NoErr(err)
	is.Equal(p.SettingsID, "demo")
}

// TestServeA2A serves the agent as -http does and runs the approval story over A2A: the card, a task that waits for
// approval, its answer; and the conversation it made is the native API's too.
func TestServeA2A(t *testing.T) {
	is := is.New(t)
	t.Setenv(envDatabaseURL, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, options{}, &out) }()
	defer func() {
		cancel()
		is.NoErr(<-done)
	}()
	base := "http://" + ln.Addr().String()

	cardResp, err := http.Get(base + "/a2a/.well-known/agent-card.json")
	is.NoErr(err)
	var card map[string]any
	is.NoErr(json.NewDecoder(cardResp.Body).Decode(&card))
	cardResp.Body.Close()
	is.True(strings.Contains(out.String(), base+"/a2a/.well-known/agent-card.json")) // printed before serving
	is.Equal(card["name"], "Support")
	is.Equal(card["url"], base+"/a2a/")
	is.Equal(card["securitySchemes"], map[string]any{"demo-tenant": map[string]any{"type": "apiKey", "in": "header", "name": demoTenantHeader}})

	call := func(params map[string]any) map[string]any {
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params})
		r, _ := http.NewRequest("POST", base+"/a2a/", bytes.NewReader(data))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(demoTenantHeader, "demo")
		resp, err := http.DefaultClient.Do(r)
		is.NoErr(err)
		defer resp.Body.Close()
		var v map[string]any
		is.NoErr(json.NewDecoder(resp.Body).Decode(&v))
		res, ok := v["result"].(map[string]any)
		if !ok {
			t.Fatalf("message/send: %v", v)
		}
		return res
	}
	task := call(map[string]any{"message": map[string]any{"kind": "message", "messageId": "m1", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": "Please close ticket 4711: the toner cartridge was replaced."}}}})
	status := task["status"].(map[string]any)
	is.Equal(status["state"], "input-required")
	var requestID any
	for _, p := range status["message"].(map[string]any)["parts"].([]any) {
		if d, ok := p.(map[string]any)["data"].(map[string]any); ok {
			requestID = d["approvalRequest"].(map[string]any)["requestId"]
		}
	}
	done2 := call(map[string]any{"message": map[string]any{"kind": "message", "messageId": "m2", "role": "user", "taskId": task["id"],
		"parts": []any{map[string]any{"kind": "data", "data": map[string]any{"approval": map[string]any{"requestId": requestID, "approved": true}}}}}})
	is.Equal(done2["status"].(map[string]any)["state"], "completed")
	answer := done2["artifacts"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]
	is.Equal(answer, "Ticket 4711 is closed.")

	// The task's context is a conversation of the native API.
	r, _ := http.NewRequest("GET", base+"/api/conversations/"+task["contextId"].(string), nil)
	r.Header.Set(demoTenantHeader, "demo")
	conv, err := http.DefaultClient.Do(r)
	is.NoErr(err)
	conv.Body.Close()
	is.Equal(conv.StatusCode, http.StatusOK)
}
