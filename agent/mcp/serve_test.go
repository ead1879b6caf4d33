package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/agent/mcp/internal/conformance"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// served is the source the server-side tests serve: the tickets toolset, with a tool that fails, one that
// panics and one that requires approval and counts its runs.
type served struct {
	tickets *tickets.Tickets
	client  *tickets.MemoryClient
	// dangerous counts the runs of the approval-required tool "wipe".
	dangerous atomic.Int64
	src       toolset.Source
}

func newServed() *served {
	s := &served{client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	s.tickets = &tickets.Tickets{Client: s.client}
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	extra := toolset.List{
		{Name: "fail", Description: "Always fails.", Schema: obj, ID: "test.fail", State: new(toolset.State),
			Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
				return nil, errors.New("the ticket system is down; try again later")
			}},
		{Name: "boom", Description: "Panics.", Schema: obj, ID: "test.boom", State: new(toolset.State),
			Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) { panic("secret internal state") }},
		{Name: "wipe", Description: "Wipes everything.", Schema: obj, ID: "test.wipe", RequiresApproval: true,
			State: new(toolset.State),
			Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
				s.dangerous.Add(1)
				return json.RawMessage(`"wiped"`), nil
			}},
	}
	s.src = toolset.Combine(s.tickets, extra)
	return s
}

// connectServed connects an SDK client to a ToolServer over in-memory transports.
func connectServed(t *testing.T, src toolset.Source, p mcp.Principal, opts *mcp.ServeOptions, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := mcp.ToolServer(src, p, opts).Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v1"}, copts).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// canonical re-encodes JSON so that two encodings of one value compare equal.
func canonical(t *testing.T, v any) string {
	t.Helper()
	var raw []byte
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(x)
	return string(out)
}

func TestServeListsTools(t *testing.T) {
	is := is.New(t)
	s := newServed()
	want, err := s.src.Tools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	cs := connectServed(t, s.src, mcp.Principal{}, nil, nil)

	res, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		var gen *toolset.Tool
		for _, w := range want {
			if w.Name == tool.Name {
				gen = w
			}
		}
		is.True(gen != nil)
		is.Equal(canonical(t, tool.InputSchema), canonical(t, gen.Schema)) // the generated schema, unchanged
		is.Equal(tool.Description, gen.Description)
		is.True(tool.Annotations != nil)
		is.Equal(tool.Annotations.ReadOnlyHint, gen.ReadOnly)
	}
	// close_ticket and wipe require approval: left out by default.
	is.Equal(names, []string{"search_tickets", "get_ticket", "fail", "boom"})
}

func TestServePlanModeListsReadOnlyTools(t *testing.T) {
	is := is.New(t)
	cs := connectServed(t, newServed().src, mcp.Principal{}, &mcp.ServeOptions{Mode: "plan"}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	is.Equal(names, []string{"search_tickets", "get_ticket"})
}

func TestServeCalls(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		args    any
		isError bool
		want    string // a substring of the result's text
	}{
		{"good arguments", "get_ticket", map[string]any{"number": 4714}, false, `"title":"Cannot log in after password reset"`},
		{"an empty query", "search_tickets", map[string]any{"query": ""}, false, `"number":4711`},
		{"wrong type", "get_ticket", map[string]any{"number": "4714"}, true, "number"},
		{"missing required", "get_ticket", map[string]any{}, true, "number"},
		{"out of range", "get_ticket", map[string]any{"number": -1}, true, "at least 1"},
		{"unknown property", "get_ticket", map[string]any{"number": 4714, "limit": 1}, true, "limit"},
		{"array instead of object", "get_ticket", []int{1}, true, "object"},
		{"deeply nested", "get_ticket", nested(200), true, "number"},
		{"huge string", "search_tickets", map[string]any{"query": strings.Repeat("x", 1<<20)}, false, "[]"},
		{"tool error", "fail", nil, true, "the ticket system is down; try again later"},
		{"panic", "boom", nil, true, `tool "boom" failed unexpectedly`},
	}
	var logs bytes.Buffer
	opts := &mcp.ServeOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	cs := connectServed(t, newServed().src, mcp.Principal{}, opts, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			is.NoErr(err)
			is.Equal(res.IsError, tt.isError)
			text := contentText(res.Content)
			if !strings.Contains(text, tt.want) {
				t.Fatalf("result %q does not contain %q", text, tt.want)
			}
			is.True(!strings.Contains(text, "secret internal state")) // a panic's value stays in the log
		})
	}
	if !strings.Contains(logs.String(), "secret internal state") {
		t.Fatalf("the panic was not logged: %s", logs.String())
	}
}

func nested(depth int) any {
	var v any = map[string]any{}
	for range depth {
		v = map[string]any{"number": v}
	}
	return v
}

func contentText(parts []sdk.Content) string {
	var sb strings.Builder
	for _, p := range parts {
		if tc, ok := p.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

func TestServeStructuredResult(t *testing.T) {
	is := is.New(t)
	cs := connectServed(t, newServed().src, mcp.Principal{}, nil, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"number": 4711}})
	is.NoErr(err)
	m, ok := res.StructuredContent.(map[string]any)
	is.True(ok)
	is.Equal(m["number"], float64(4711))
}

func TestServeUnknownTool(t *testing.T) {
	tests := []struct {
		name, tool string
	}{
		{"not offered at all", "nope"},
		{"left out because it needs approval", "close_ticket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			s := newServed()
			cs := connectServed(t, s.src, mcp.Principal{}, nil, nil)
			_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool,
				Arguments: map[string]any{"number": 4711, "reason": "done"}})
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), "unknown tool"))
			tk, _, _ := s.client.Get(context.Background(), 4711)
			is.Equal(tk.Status, tickets.StatusOpen) // close_ticket never ran
		})
	}
}

// TestServeApproval checks that an approval-required tool runs only after the user accepts, whatever the client
// answers or cannot answer.
func TestServeApproval(t *testing.T) {
	tests := []struct {
		name     string
		policy   mcp.ApprovalPolicy
		elicit   func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) // nil: the client cannot elicit
		args     any
		wantRuns int64
		wantText string
		wantAsks int64
	}{
		{"accepted", mcp.ElicitApproval, answer("accept"), nil, 1, "wiped", 1},
		{"declined", mcp.ElicitApproval, answer("decline"), nil, 0, "The tool call was denied.", 1},
		{"cancelled", mcp.ElicitApproval, answer("cancel"), nil, 0, "not run", 1},
		{"elicitation fails", mcp.ElicitApproval, func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, errors.New("the user closed the window")
		}, nil, 0, "cannot ask", 1},
		{"client cannot elicit", mcp.ElicitApproval, nil, nil, 0, "cannot ask", 0},
		{"invalid arguments are refused before asking", mcp.ElicitApproval, answer("accept"), []int{1}, 0, "object", 0},
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				is := is.New(t)
				s := newServed()
				var asks atomic.Int64
				var copts *sdk.ClientOptions
				if tt.elicit != nil {
					copts = &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						asks.Add(1)
						if !strings.Contains(r.Params.Message, `"wipe"`) {
							t.Errorf("the request does not name the tool: %q", r.Params.Message)
						}
						return tt.elicit(r)
					}}
				}
				opts := &mcp.ServeOptions{Approval: tt.policy,
					Server: &sdk.ServerOptions{SupportedProtocolVersions: []string{version}}}
				cs := connectServed(t, s.src, mcp.Principal{}, opts, copts)
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe", Arguments: tt.args})
				is.Equal(s.dangerous.Load(), tt.wantRuns)
				is.Equal(asks.Load(), tt.wantAsks)
				if err != nil { // the client failed to answer its own input request: the call ends, unrun
					is.True(tt.wantRuns == 0)
					return
				}
				is.Equal(res.IsError, tt.wantRuns == 0)
				if text := contentText(res.Content); !strings.Contains(text, tt.wantText) {
					t.Fatalf("result %q does not contain %q", text, tt.wantText)
				}
			})
		}
	}
}

// TestServeApprovalForged checks that a client cannot approve a call by answering a question nobody asked, nor
// reuse an answer for other arguments or a second call.
func TestServeApprovalForged(t *testing.T) {
	accept := &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}
	tests := []struct {
		name  string
		state func(asked string) string
		args  func() any
	}{
		{"an id the server never issued", func(string) string { return "approve-guess" }, nil},
		{"an answer used twice", func(asked string) string { return asked }, nil},
		{"an answer for other arguments", func(asked string) string { return asked },
			func() any { return map[string]any{"all": true} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			s := newServed()
			var asked string
			copts := &sdk.ClientOptions{
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return accept, nil },
				MultiRoundTrip:     &sdk.MultiRoundTripOptions{Disabled: true}, // the test answers by hand
			}
			cs := connectServed(t, s.src, mcp.Principal{}, &mcp.ServeOptions{Approval: mcp.ElicitApproval}, copts)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe"})
			is.NoErr(err)
			is.True(res.InputRequests != nil)
			asked = res.RequestState
			if tt.name == "an answer used twice" {
				res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe", RequestState: asked,
					InputResponses: sdk.InputResponseMap{asked: accept}})
				is.NoErr(err)
				is.True(!res.IsError)
				is.Equal(s.dangerous.Load(), int64(1))
			}
			var args any
			if tt.args != nil {
				args = tt.args()
			}
			id := tt.state(asked)
			res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe", Arguments: args,
				RequestState: id, InputResponses: sdk.InputResponseMap{id: accept}})
			is.NoErr(err)
			is.True(res.IsError)
			is.True(strings.Contains(contentText(res.Content), "does not answer a request this server made"))
			if tt.name == "an answer used twice" {
				is.Equal(s.dangerous.Load(), int64(1))
			} else {
				is.Equal(s.dangerous.Load(), int64(0))
			}
		})
	}
}

func answer(action string) func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: action, Content: map[string]any{}}, nil
	}
}

// putLimit stores a tenant's search limit, keyed by the tool's ID.
func putLimit(t *testing.T, store *memory.Store, settingsID string, limit int) {
	t.Helper()
	doc := fmt.Sprintf(`{"tools":{%q:{"limit":%d,"include_closed":true}}}`, tickets.TicketsSearchTicketsID, limit)
	if _, err := store.PutSettings(context.Background(), storage.Document{SettingsID: settingsID, Kind: "tickets",
		Data: json.RawMessage(doc)}, 0); err != nil {
		t.Fatal(err)
	}
}

func TestServeStoredSettings(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	putLimit(t, store, "tenant-a", 1)
	opts := &mcp.ServeOptions{Settings: agent.StoredSettings(store), SettingsKind: "tickets"}
	cs := connectServed(t, newServed().src, mcp.Principal{SettingsID: "tenant-a"}, opts, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_tickets",
		Arguments: map[string]any{"query": ""}})
	is.NoErr(err)
	is.True(!res.IsError)
	var found []tickets.Ticket
	is.NoErr(json.Unmarshal([]byte(contentText(res.Content)), &found))
	is.Equal(len(found), 1)
}

func TestServeBadStoredSettings(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	_, err := store.PutSettings(context.Background(), storage.Document{SettingsID: "t", Kind: "tickets",
		Data: json.RawMessage(`{"tools":{"search_tickets":{"limit":0}}}`)}, 0)
	is.NoErr(err)
	var logs bytes.Buffer
	opts := &mcp.ServeOptions{Settings: agent.StoredSettings(store), SettingsKind: "tickets",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	cs := connectServed(t, newServed().src, mcp.Principal{SettingsID: "t"}, opts, nil)
	_, err = cs.ListTools(context.Background(), nil)
	is.True(err != nil)                                                      // the listing fails rather than serve unconfigured tools
	is.True(strings.Contains(err.Error(), "cannot be listed"))               // the client reads a generic message
	is.True(strings.Contains(logs.String(), "stored settings do not apply")) // the log says why
}

// bearer authenticates a request by its bearer token, which names the tenant; the test's stand-in for an
// application's real check.
func bearer(r *http.Request) (mcp.Principal, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return mcp.Principal{}, errors.New("no bearer token")
	}
	return mcp.Principal{SettingsID: tok}, nil
}

// tokenTransport adds a bearer token to every request.
type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpSession(t *testing.T, url, token string, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{token}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v1"}, copts).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestHandlerTenants(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	putLimit(t, store, "tenant-a", 1)
	putLimit(t, store, "tenant-b", 3)
	s := newServed()
	srv := httptest.NewServer(mcp.Handler(s.src, bearer, &mcp.HandlerOptions{ServeOptions: mcp.ServeOptions{
		Settings: agent.StoredSettings(store), SettingsKind: "tickets", Approval: mcp.ElicitApproval}}))
	t.Cleanup(srv.Close)

	count := func(cs *sdk.ClientSession) int {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_tickets",
			Arguments: map[string]any{"settings": map[string]any{"limit": 100}}})
		is.NoErr(err)
		is.True(res.IsError) // settings cannot come through the arguments
		is.True(strings.Contains(contentText(res.Content), "settings"))
		res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_tickets",
			Arguments: map[string]any{"query": ""}})
		is.NoErr(err)
		is.True(!res.IsError)
		var found []tickets.Ticket
		is.NoErr(json.Unmarshal([]byte(contentText(res.Content)), &found))
		return len(found)
	}
	a := httpSession(t, srv.URL, "tenant-a", nil)
	b := httpSession(t, srv.URL, "tenant-b", nil)
	is.Equal(count(a), 1)
	is.Equal(count(b), 3)
	is.Equal(count(a), 1)

	// Over HTTP, an approval-required tool asks the client too.
	accept := httpSession(t, srv.URL, "tenant-a", &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}})
	res, err := accept.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe"})
	is.NoErr(err)
	is.True(!res.IsError)
	res, err = a.CallTool(context.Background(), &sdk.CallToolParams{Name: "wipe"})
	is.NoErr(err)
	is.True(res.IsError) // a's client cannot elicit
	is.Equal(s.dangerous.Load(), int64(1))
}

func TestHandlerRefuses(t *testing.T) {
	srv := httptest.NewServer(mcp.Handler(newServed().src, bearer, nil))
	t.Cleanup(srv.Close)
	a := httpSession(t, srv.URL, "tenant-a", nil)
	aSession := a.ID()
	if aSession == "" {
		t.Fatal("no session id")
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	tests := []struct {
		name    string
		token   string
		session string
		want    int
	}{
		{"no credentials", "", "", http.StatusUnauthorized},
		{"another tenant's session", "tenant-b", aSession, http.StatusNotFound},
		{"a forged session id", "tenant-b", "abc.def", http.StatusNotFound},
		{"a session id without a signature", "tenant-a", "abc", http.StatusNotFound},
		{"its own session", "tenant-a", aSession, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(init))
			is.NoErr(err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			if tt.session != "" {
				req.Header.Set("Mcp-Session-Id", tt.session)
			}
			resp, err := http.DefaultClient.Do(req)
			is.NoErr(err)
			_ = resp.Body.Close()
			is.Equal(resp.StatusCode, tt.want)
		})
	}
}

// TestServeAgentTools serves what an agent's host offers, configured by the agent's own settings document.
func TestServeAgentTools(t *testing.T) {
	is := is.New(t)
	s := newServed()
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: &model{}, Tools: []toolset.Source{s.tickets}})
	is.NoErr(err)
	store := memory.New()
	doc := fmt.Sprintf(`{"max_iterations":5,"tools":{%q:{"limit":2,"include_closed":true}}}`, tickets.TicketsSearchTicketsID)
	_, err = store.PutSettings(context.Background(), storage.Document{SettingsID: "t", Kind: h.SettingsKind(),
		Data: json.RawMessage(doc)}, 0)
	is.NoErr(err)
	cs := connectServed(t, h.Tools(), mcp.Principal{SettingsID: "t"},
		&mcp.ServeOptions{Settings: agent.StoredSettings(store), SettingsKind: h.SettingsKind()}, nil)
	list, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(list.Tools), 2) // search_tickets and get_ticket; close_ticket needs approval
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_tickets",
		Arguments: map[string]any{"query": ""}})
	is.NoErr(err)
	var found []tickets.Ticket
	is.NoErr(json.Unmarshal([]byte(contentText(res.Content)), &found))
	is.Equal(len(found), 2)
}

func TestServeFailingSource(t *testing.T) {
	tests := []struct {
		name string
		src  toolset.SourceFunc
	}{
		{"an error", func(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
			return nil, errors.New("database password is hunter2")
		}},
		{"a panic", func(context.Context, *toolset.Run) ([]*toolset.Tool, error) { panic("database password is hunter2") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var logs bytes.Buffer
			cs := connectServed(t, tt.src, mcp.Principal{}, &mcp.ServeOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
			for _, call := range []func() error{
				func() error { _, err := cs.ListTools(context.Background(), nil); return err },
				func() error { _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "x"}); return err },
			} {
				err := call()
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), "cannot be listed now"))
				is.True(!strings.Contains(err.Error(), "hunter2")) // what failed stays in the log
			}
			is.True(strings.Contains(logs.String(), "hunter2"))
		})
	}
}

func TestServeHideToolErrors(t *testing.T) {
	is := is.New(t)
	cs := connectServed(t, newServed().src, mcp.Principal{}, &mcp.ServeOptions{HideToolErrors: true}, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fail"})
	is.NoErr(err)
	is.True(res.IsError)
	is.Equal(contentText(res.Content), `tool "fail" failed`)
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"number": "x"}})
	is.NoErr(err)
	is.Equal(contentText(res.Content), `"number" must be an integer, got string`) // argument errors are always shown
}

// TestServePanicWithoutLogger shows where a served tool's panic goes when ServeOptions has no Logger: to
// slog.Default, with its value and stack, as a host's run does; the client still reads only that the tool
// failed. It changes the process's default logger, so it does not run in parallel.
func TestServePanicWithoutLogger(t *testing.T) {
	is := is.New(t)
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	cs := connectServed(t, newServed().src, mcp.Principal{}, nil, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "boom"})
	is.NoErr(err)
	is.True(res.IsError)
	is.Equal(contentText(res.Content), `tool "boom" failed unexpectedly`)
	is.True(strings.Contains(logs.String(), "MCP server: tool panicked"))
	is.True(strings.Contains(logs.String(), "secret internal state"))
	is.True(strings.Contains(logs.String(), "goroutine")) // the stack
}

// TestServeContent calls the generated tools whose results are toolset.Content, and checks the MCP content the
// SDK's client reads: each part as the content of its kind, the bytes unchanged, no structured content. A result
// that only looks like one stays JSON data.
func TestServeContent(t *testing.T) {
	look := &toolset.Tool{Name: "lookalike", Schema: json.RawMessage(`{"type":"object","properties":{}}`),
		ID: "test.lookalike", ReadOnly: true, State: new(toolset.State),
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"content":[{"type":"text","text":"a"}],"total":1}`), nil
		}}
	cs := connectServed(t, toolset.Combine(&conformance.Media{}, toolset.List{look}), mcp.Principal{}, nil, nil)
	call := func(t *testing.T, name string) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%s failed: %s", name, contentText(res.Content))
		}
		return res
	}
	t.Run("image", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "test_image_content")
		is.Equal(len(res.Content), 1)
		img, ok := res.Content[0].(*sdk.ImageContent)
		is.True(ok)
		is.Equal(img.MIMEType, "image/png")
		is.Equal(img.Data, conformance.RedPixel)
		is.Equal(res.StructuredContent, nil)
	})
	t.Run("audio", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "test_audio_content")
		au, ok := res.Content[0].(*sdk.AudioContent)
		is.True(ok)
		is.Equal(au.MIMEType, "audio/wav")
		is.Equal(au.Data, conformance.Silence)
	})
	t.Run("mixed", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "test_multiple_content_types")
		is.Equal(len(res.Content), 4)
		is.Equal(res.Content[0].(*sdk.TextContent).Text, "Multiple content types test:")
		is.Equal(res.Content[1].(*sdk.ImageContent).Data, conformance.RedPixel)
		r := res.Content[2].(*sdk.EmbeddedResource).Resource
		is.Equal(r.URI, "test://mixed-content-resource")
		is.Equal(r.MIMEType, "application/json")
		is.Equal(r.Text, `{"test":"data","value":123}`)
		link := res.Content[3].(*sdk.ResourceLink)
		is.Equal(link.URI, "test://linked-resource")
		is.Equal(link.Name, "linked")
		is.Equal(link.MIMEType, "text/plain")
	})
	t.Run("lookalike", func(t *testing.T) {
		is := is.New(t)
		res := call(t, "lookalike")
		is.Equal(contentText(res.Content), `{"content":[{"type":"text","text":"a"}],"total":1}`)
		is.True(res.StructuredContent != nil)
	})
}
