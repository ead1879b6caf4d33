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
