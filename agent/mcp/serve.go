package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// Principal is whom the requests of one MCP session come from. Over stdio the program that serves names it;
// over HTTP the application's [Authenticate] callback does, from the request, never from the client's arguments.
type Principal struct {
	// SettingsID is the tenant: its stored settings apply, and tools read it as [toolset.Run.SettingsID].
	SettingsID string
	// Subject names the user or client within the tenant, for the application's filters and logs. It may be
	// empty.
	Subject string
}

type principalKey struct{}

// PrincipalFrom returns the principal of the MCP request whose context ctx is, so that a [toolset.Filter] or a
// tool can tell who is asking.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// ApprovalPolicy says what a served source does with tools that require approval.
type ApprovalPolicy int

const (
	// OmitApprovalTools leaves the tools that require approval out: they are not listed, and a call to one is
	// answered as a call to an unknown tool. It is the default.
	OmitApprovalTools ApprovalPolicy = iota
	// ElicitApproval lists them and, before each call, asks the client's user through an elicitation request.
	// The call runs only when the user accepts; a decline, a cancel, or a client that cannot elicit leaves it
	// unrun and answers with a tool error saying so.
	ElicitApproval
)

// ServeOptions configure how a [toolset.Source] is served as an MCP server. The zero value, and a nil
// *ServeOptions, serve every tool that needs no approval, with no stored settings.
type ServeOptions struct {
	// Implementation is what the server tells clients about itself. Nil means "typeshift".
	Implementation *sdk.Implementation
	// Approval says what happens to tools that require approval; the zero value leaves them out.
	Approval ApprovalPolicy
	// Settings, when not nil, holds the tenants' stored settings: the "tools" object of the principal's document
	// of kind SettingsKind configures the served tools, keyed by tool ID or by name, as in a run (see
	// docs/tool-settings.md). Keys for tools the source does not offer are ignored, since one document may also
	// configure an agent's other tools; overrides a tool refuses fail the listing and the call.
	Settings agent.SettingsSource
	// SettingsKind is the kind of the settings document, such as an agent's [agent.Declaration.SettingsKind].
	// Empty means the Implementation's name.
	SettingsKind string
	// Mode is the mode the source sees in [toolset.Run.Mode]; "plan" serves read-only tools only.
	Mode string
	// HideToolErrors answers a failing tool with `tool "x" failed` instead of its error's message, as
	// [agent.Config.HideToolErrors] does in a run. Argument errors and retry requests are always shown.
	HideToolErrors bool
	// Logger receives what clients must not read: a panicking tool's value and stack, hidden errors, failed
	// settings. Nil means [slog.Default] at the time of the log; slog.New(slog.DiscardHandler) discards it.
	Logger *slog.Logger
	// Server configures the SDK server; it is copied. Its GetSessionID is replaced by [Handler], which binds
	// each session to its principal.
	Server *sdk.ServerOptions
}

// ToolServer returns an MCP server that offers the tools of src to the principal p. Tools are read from src
// for each tools/list and tools/call request, so filters and settings apply as they change. The generated
// schemas go out as they are; a read-only tool carries the readOnlyHint annotation. Run it on a transport with
// its Run or Connect method, or use [ServeStdio] or [Handler].
func ToolServer(src toolset.Source, p Principal, opts *ServeOptions) *sdk.Server {
	ts := newToolServer(src, opts)
	return ts.server(p)
}

// ServeStdio serves the tools of src to the principal p over standard input and output until the client
// disconnects or ctx ends: the way an MCP host (an editor, a desktop assistant) runs a server as a subprocess.
func ServeStdio(ctx context.Context, src toolset.Source, p Principal, opts *ServeOptions) error {
	return ToolServer(src, p, opts).Run(ctx, &sdk.StdioTransport{})
}

// toolServer serves one source; it makes an SDK server per principal.
type toolServer struct {
	src  toolset.Source
	opts ServeOptions
	impl *sdk.Implementation
	kind string
	// pending holds the approval requests sent inside results, until they are answered or expire.
	pending approvals
}

func newToolServer(src toolset.Source, opts *ServeOptions) *toolServer {
	ts := &toolServer{src: src}
	if opts != nil {
		ts.opts = *opts
	}
	ts.impl = ts.opts.Implementation
	if ts.impl == nil {
		ts.impl = &sdk.Implementation{Name: "typeshift", Version: "v0"}
	}
	ts.kind = ts.opts.SettingsKind
	if ts.kind == "" {
		ts.kind = ts.impl.Name
	}
	return ts
}

// server makes the SDK server for one principal. Its tools are not registered with the SDK: a receiving
// middleware answers tools/list and tools/call from the source, so every request sees the tools as they are
// then, for this principal.
func (ts *toolServer) server(p Principal, setup ...func(*sdk.ServerOptions)) *sdk.Server {
	var so sdk.ServerOptions
	if ts.opts.Server != nil {
		so = *ts.opts.Server
	}
	so.HasTools = true
	if so.Capabilities == nil {
		// The tools are read from the source for each request, and no change of a source is signalled: the
		// server does not claim to send notifications/tools/list_changed. Logging reaches tools through
		// ClientLogger.
		so.Capabilities = &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Logging: &sdk.LoggingCapabilities{}}
	}
	for _, f := range setup {
		f(&so)
	}
	s := sdk.NewServer(ts.impl, &so)
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch method {
			case "tools/list":
				return ts.list(withPrincipal(ctx, p), p)
			case "tools/call":
				if r, ok := req.(*sdk.CallToolRequest); ok {
					return ts.call(withPrincipal(ctx, p), p, r)
				}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// logger is ServeOptions.Logger, or slog.Default when it is nil: a panic's value and stack must reach the
// developer even when the server was built without a logger, as in a host's run.
func (ts *toolServer) logger() *slog.Logger {
	if ts.opts.Logger != nil {
		return ts.opts.Logger
	}
	return slog.Default()
}

// errSource is returned to the client when the source or the settings fail: what failed stays in the log.
var errSource = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's tools cannot be listed now"}

// tools returns the tools served to p now, with p's stored settings applied, less those the approval policy
// leaves out.
func (ts *toolServer) tools(ctx context.Context, p Principal) ([]*toolset.Tool, error) {
	run := &toolset.Run{SettingsID: p.SettingsID, Agent: ts.impl.Name, Mode: ts.opts.Mode}
	tools, err := ts.sourceTools(ctx, run)
	if err != nil {
		ts.logger().ErrorContext(ctx, "MCP server: listing tools failed", "settings_id", p.SettingsID, "error", err)
		return nil, errSource
	}
	overrides, err := ts.overrides(ctx, p)
	if err != nil {
		ts.logger().ErrorContext(ctx, "MCP server: stored settings cannot be read", "settings_id", p.SettingsID, "error", err)
		return nil, errSource
	}
	out := tools[:0]
	for _, t := range tools {
		if t == nil || (t.RequiresApproval && ts.opts.Approval != ElicitApproval) || (ts.opts.Mode == "plan" && !t.ReadOnly) {
			continue
		}
		layer, ok := overrides[t.ID]
		if !ok || t.ID == "" {
			layer, ok = overrides[t.Name]
		}
		if ok {
			c, err := t.WithOverrides(layer)
			if err != nil {
				ts.logger().ErrorContext(ctx, "MCP server: stored settings do not apply", "settings_id", p.SettingsID,
					"tool", t.Name, "error", err)
				return nil, errSource
			}
			t = c
		}
		out = append(out, t)
	}
	return out, nil
}

// sourceTools asks the source for its tools. A source that panics (a filter's predicate, a source built by hand)
// fails the request rather than the process that serves it.
func (ts *toolServer) sourceTools(ctx context.Context, run *toolset.Run) (tools []*toolset.Tool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the source panicked: %v", v)
			ts.logger().ErrorContext(ctx, "MCP server: the source panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	return ts.src.Tools(ctx, run)
}

// overrides reads the "tools" object of p's stored settings.
func (ts *toolServer) overrides(ctx context.Context, p Principal) (map[string]json.RawMessage, error) {
	if ts.opts.Settings == nil || p.SettingsID == "" {
		return nil, nil
	}
	doc, err := ts.opts.Settings.Settings(ctx, p.SettingsID, ts.kind)
	if err != nil || len(doc) == 0 {
		return nil, err
	}
	var d struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("settings document of kind %q: %w", ts.kind, err)
	}
	return d.Tools, nil
}

func (ts *toolServer) list(ctx context.Context, p Principal) (sdk.Result, error) {
	tools, err := ts.tools(ctx, p)
	if err != nil {
		return nil, err
	}
	// The list is the principal's own (its settings, the source's filters) and may change with any request.
	res := &sdk.ListToolsResult{Tools: make([]*sdk.Tool, 0, len(tools))}
	res.CacheScope = "private"
	for _, t := range tools {
		res.Tools = append(res.Tools, mcpTool(t))
	}
	return res, nil
}

// mcpTool describes t to MCP clients. The schema is the generated one, byte for byte.
func mcpTool(t *toolset.Tool) *sdk.Tool {
	return &sdk.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.Schema,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.ReadOnly},
	}
}

func (ts *toolServer) call(ctx context.Context, p Principal, req *sdk.CallToolRequest) (sdk.Result, error) {
	if req.Params == nil || req.Params.Name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call names no tool"}
	}
	name := req.Params.Name
	tools, err := ts.tools(ctx, p)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(tools, func(t *toolset.Tool) bool { return t.Name == name })
	if i < 0 {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown tool %q; the tools are: %s", name, strings.Join(names, ", "))}
	}
	tool := tools[i]
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = emptyObject
	}
	if tool.RequiresApproval {
		// Arguments are checked before the user is asked, so that nobody approves a call that cannot run.
		if err := checkArguments(tool, args); err != nil {
			return toolErrorResult(ts.errorText(ctx, tool, err)), nil
		}
		res, ok := ts.approve(ctx, p, req, tool, args)
		if !ok {
			return res, nil
		}
	}
	ctx = callContext(ctx, req)
	res, err := tool.Call(ctx, &toolset.Call{Name: name, Arguments: args,
		Run: &toolset.Run{SettingsID: p.SettingsID, Agent: ts.impl.Name, Mode: ts.opts.Mode}})
	if err != nil {
		return toolErrorResult(ts.errorText(ctx, tool, err)), nil
	}
	return toolResult(res), nil
}

var emptyObject = json.RawMessage("{}")

// checkArguments decodes args as the tool would, or checks that they are one JSON object when the tool has no
// decoder of its own.
func checkArguments(tool *toolset.Tool, args json.RawMessage) error {
	if tool.Decode != nil {
		_, err := tool.Decode(args)
		return err
	}
	_, err := objectArguments(args)
	return err
}

// approve asks the client's user whether tool may run with args, and reports whether the user accepted. When
// it returns false, its result is what the client reads instead: a refusal, or a request for input.
//
// A client of a protocol version with multi round-trip requests is sent the elicitation inside the result and
// calls again with the answer; the answer counts only if it answers a request this server made, for this
// principal, tool and arguments, and only once. Older clients are sent an elicitation request during the call.
func (ts *toolServer) approve(ctx context.Context, p Principal, req *sdk.CallToolRequest, tool *toolset.Tool, args json.RawMessage) (*sdk.CallToolResult, bool) {
	params := req.Params
	if params.RequestState != "" || params.InputResponses != nil {
		if !ts.pending.take(params.RequestState, p, tool.Name, args) {
			return toolErrorResult(fmt.Sprintf("the approval answer for tool %q does not answer a request this server made: the call was not run", tool.Name)), false
		}
		res, ok := params.InputResponses[params.RequestState].(*sdk.ElicitResult)
		if !ok {
			return toolErrorResult(fmt.Sprintf("tool %q needs the user's approval, and the answer is missing: the call was not run", tool.Name)), false
		}
		return ts.decided(tool, res.Action)
	}
	ss := req.Session
	if ss == nil || !canElicit(ss) {
		return toolErrorResult(cannotAsk(tool)), false
	}
	ask := &sdk.ElicitParams{
		Mode:            "form",
		Message:         fmt.Sprintf("Allow the tool %q to run with these arguments?\n%s", tool.Name, args),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}
	if multiRoundTrip(ss) {
		id, err := ts.pending.add(p, tool.Name, args)
		if err != nil {
			return toolErrorResult(fmt.Sprintf("tool %q needs the user's approval: %v; the call was not run", tool.Name, err)), false
		}
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{id: ask}, RequestState: id}, false
	}
	res, err := ss.Elicit(ctx, ask)
	if err != nil {
		ts.logger().InfoContext(ctx, "MCP server: approval could not be asked", "tool", tool.Name, "error", err)
		return toolErrorResult(cannotAsk(tool)), false
	}
	return ts.decided(tool, res.Action)
}

// decided maps the user's answer to an approval request.
func (ts *toolServer) decided(tool *toolset.Tool, action string) (*sdk.CallToolResult, bool) {
	switch action {
	case "accept":
		return nil, true
	case "decline":
		return toolErrorResult("The tool call was denied."), false
	}
	return toolErrorResult(fmt.Sprintf("The user cancelled the approval of tool %q: the call was not run.", tool.Name)), false
}

func cannotAsk(tool *toolset.Tool) string {
	return fmt.Sprintf("tool %q needs the user's approval, and this MCP client cannot ask for it (elicitation): the call was not run", tool.Name)
}

// canElicit reports whether the client said it can answer elicitation requests.
func canElicit(ss *sdk.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// multiRoundTrip reports whether the client speaks a protocol version in which a server asks for input inside
// a result (SEP-2322) rather than by a request of its own during the call.
func multiRoundTrip(ss *sdk.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// errorText is what the client's model reads of a tool's error, by the rules of a run.
func (ts *toolServer) errorText(ctx context.Context, tool *toolset.Tool, err error) string {
	var (
		retry *toolset.RetryError
		arg   *tooljson.Error
		pe    *toolset.PanicError
	)
	switch {
	case errors.As(err, &retry), errors.As(err, &arg):
		return err.Error()
	case errors.As(err, &pe):
		ts.logger().ErrorContext(ctx, "MCP server: tool panicked", "tool", tool.Name, "panic", fmt.Sprint(pe.Value),
			"stack", string(pe.Stack))
		return pe.Error()
	case ts.opts.HideToolErrors:
		ts.logger().WarnContext(ctx, "MCP server: tool failed", "tool", tool.Name, "error", err)
		return fmt.Sprintf("tool %q failed", tool.Name)
	}
	return err.Error()
}

func toolErrorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// toolResult carries a tool's result. A [toolset.Content] goes out as its parts, each as the MCP content of its
// kind. Any other result is JSON data: it goes out as text always, and as structured content too when it is an
// object, which is the one shape structured content may take.
func toolResult(res json.RawMessage) *sdk.CallToolResult {
	if c, ok := toolset.ParseContent(res); ok {
		return &sdk.CallToolResult{Content: mcpContent(c)}
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(res)}}}
	if b := trimLeft(res); len(b) > 0 && b[0] == '{' {
		out.StructuredContent = res
	}
	return out
}

// mcpContent maps the parts of a Content result to MCP content. A resource goes out embedded, with its text
// or its bytes; a link without a name is named by its URI, since MCP requires a name. A result without parts is
// one empty text part, since a client reads the content list and a result must say something.
func mcpContent(c toolset.Content) []sdk.Content {
	out := make([]sdk.Content, 0, max(len(c.Parts), 1))
	for _, p := range c.Parts {
		switch p.Type {
		case toolset.ContentText:
			out = append(out, &sdk.TextContent{Text: p.Text})
		case toolset.ContentImage:
			out = append(out, &sdk.ImageContent{MIMEType: p.MediaType, Data: p.Data})
		case toolset.ContentAudio:
			out = append(out, &sdk.AudioContent{MIMEType: p.MediaType, Data: p.Data})
		case toolset.ContentResource:
			r := &sdk.ResourceContents{URI: p.URI, MIMEType: p.MediaType, Text: p.Text}
			if len(p.Data) > 0 {
				r.Blob = p.Data
			}
			out = append(out, &sdk.EmbeddedResource{Resource: r})
		case toolset.ContentResourceLink:
			name := p.Name
			if name == "" {
				name = p.URI
			}
			out = append(out, &sdk.ResourceLink{URI: p.URI, Name: name, MIMEType: p.MediaType})
		}
	}
	if len(out) == 0 {
		out = append(out, &sdk.TextContent{})
	}
	return out
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// callContext is the context a served tool runs in: its progress reports ([chat.ReportProgress]) go to the client
// as notifications/progress when the request carries a progress token, and [ClientLogger] logs to the client.
func callContext(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	ss := req.Session
	if ss == nil {
		return ctx
	}
	ctx = context.WithValue(ctx, sessionKey{}, ss)
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx
	}
	return chat.WithProgress(ctx, func(p chat.Progress) {
		// The report goes out as the tool makes it; a client that is gone loses it, and the call goes on.
		_ = ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p.Progress,
			Total: p.Total, Message: p.Message})
	})
}

type sessionKey struct{}

// ClientLogger returns a logger whose records go to the MCP client of the served tool call whose context ctx
// is, as notifications/message at or above the level the client chose (logging/setLevel; nothing before it
// chooses one). Outside a served call it discards what it is given.
func ClientLogger(ctx context.Context) *slog.Logger {
	ss, ok := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	if !ok {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(sdk.NewLoggingHandler(ss, &sdk.LoggingHandlerOptions{LoggerName: "typeshift"}))
}
