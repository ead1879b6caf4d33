package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/toolset"
)

// Server offers the tools of one MCP server session as a [toolset.Source]. Make one with [Connect], which starts
// the session and caches the tool list until the server says it changed, or with [Tools] over a session made
// elsewhere. A Server is safe for concurrent use.
type Server struct {
	session *sdk.ClientSession
	opts    Options
	name    string
	owned   bool // the session was started by Connect, and Close ends it
	cached  bool // the list is kept until a list_changed notification

	// progress holds, per progress token of a call in flight, where its progress reports go. Only a Server made
	// by Connect hears the server's notifications/progress, so only it sends tokens.
	progress sync.Map // string -> *callProgress
	tokens   atomic.Uint64
	// flight counts the calls in flight and the sampling requests answered for them, which Options.Sampling
	// bounds; the count starts again when no call is in flight.
	flight struct {
		sync.Mutex
		calls, sampled int64
		ctxs           map[string]context.Context // per progress token
	}
	// stopped is set once the session's connection has closed under it: the server offers no tools from then on.
	stopped atomic.Bool
	closed  atomic.Bool // Close was called
	// tasks holds the tools that require task-based execution, which are not offered; nil when the transport
	// cannot tell.
	tasks *taskTools

	mu     sync.Mutex
	gen    uint64                    // counts list_changed notifications, so a list fetched across one is not kept
	tools  []*toolset.Tool           // the cached list, nil when there is none
	states map[string]*toolset.State // per tool name, so a tool keeps its State across refreshes
}

var (
	_ toolset.Source = (*Server)(nil)
	_ toolset.Named  = (*Server)(nil)
)

// Connect starts a session with the MCP server at the other end of transport and returns its tools as a source.
// The server's tool list is fetched on first use and kept until the server sends notifications/tools/list_changed.
// Close the Server to end the session.
//
// Transports come from the SDK: [sdk.CommandTransport] runs a server as a subprocess over stdio,
// [sdk.StreamableClientTransport] reaches one over HTTP, and [sdk.NewInMemoryTransports] connects one in the same
// process.
func Connect(ctx context.Context, transport sdk.Transport, opts *Options) (*Server, error) {
	if transport == nil {
		return nil, errors.New("connecting to an MCP server: the transport is nil")
	}
	s := newServer(opts)
	s.owned, s.cached = true, true
	restrictEnv(transport)
	if _, http := transport.(*sdk.StreamableClientTransport); !http {
		s.tasks = new(taskTools)
		transport = &taskTransport{Transport: transport, tasks: s.tasks}
	}

	var copts sdk.ClientOptions
	if s.opts.Client != nil {
		copts = *s.opts.Client
	}
	next := copts.ToolListChangedHandler
	copts.ToolListChangedHandler = func(ctx context.Context, req *sdk.ToolListChangedRequest) {
		s.invalidate()
		if next != nil {
			next(ctx, req)
		}
	}
	if s.opts.Sampling != nil && s.opts.Sampling.Client != nil && copts.CreateMessageHandler == nil &&
		copts.CreateMessageWithToolsHandler == nil {
		copts.CreateMessageHandler = s.sample
	}
	nextProgress := copts.ProgressNotificationHandler
	copts.ProgressNotificationHandler = func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
		s.onProgress(req.Params)
		if nextProgress != nil {
			nextProgress(ctx, req)
		}
	}
	impl := s.opts.Implementation
	if impl == nil {
		impl = &sdk.Implementation{Name: "typeshift", Version: "v0"}
	}
	session, err := sdk.NewClient(impl, &copts).Connect(ctx, transport, nil)
	if err != nil {
		if s.opts.Name != "" {
			return nil, fmt.Errorf("connecting to MCP server %q: %w", s.opts.Name, err)
		}
		return nil, fmt.Errorf("connecting to an MCP server: %w", err)
	}
	s.attach(session)
	return s, nil
}

// Tools returns the tools of an MCP session made elsewhere as a source. The session's client was not set up by
// this package, so the Server cannot hear the server's list_changed notifications: it lists the tools every
// turn. Use [Connect] to have the list cached. Close does not end a session the Server did not start.
func Tools(session *sdk.ClientSession, opts *Options) *Server {
	s := newServer(opts)
	s.attach(session)
	return s
}

func newServer(opts *Options) *Server {
	s := &Server{states: make(map[string]*toolset.State)}
	if opts != nil {
		s.opts = *opts
	}
	return s
}

// attach records the session and settles the server's name, which may come from the session's handshake.
func (s *Server) attach(session *sdk.ClientSession) {
	s.session = session
	s.name = s.opts.Name
	if s.name == "" && session != nil {
		if r := session.InitializeResult(); r != nil && r.ServerInfo != nil {
			s.name = r.ServerInfo.Name
		}
	}
	if s.name == "" {
		s.name = "mcp"
	}
}

// Name returns the server's name, as used in tool IDs.
func (s *Server) Name() string { return s.name }

// SourceName returns the source's name in error messages, such as `MCP("github")`.
func (s *Server) SourceName() string { return fmt.Sprintf("MCP(%q)", s.name) }

// Session returns the SDK session the tools are called through.
func (s *Server) Session() *sdk.ClientSession { return s.session }

// Close ends the session if [Connect] started it; otherwise it does nothing and the session's owner closes it.
func (s *Server) Close() error {
	if !s.owned || s.session == nil {
		return nil
	}
	s.closed.Store(true)
	return s.session.Close()
}

// stop records that the server's connection closed under the session, so its tools are no longer offered.
func (s *Server) stop(ctx context.Context, err error) {
	if s.closed.Load() {
		return // closed here, not stopped there: calls and listings fail as on any closed session
	}
	if !s.stopped.Swap(true) && s.opts.Logger != nil {
		s.opts.Logger.WarnContext(ctx, "MCP server stopped: its tools are no longer offered", "server", s.name, "error", err)
	}
}

// Invalidate drops the cached tool list, so the next turn lists the tools again. Connect calls it on each
// list_changed notification; call it when something else tells you the tools changed.
func (s *Server) Invalidate() { s.invalidate() }

func (s *Server) invalidate() {
	s.mu.Lock()
	s.gen++
	s.tools = nil
	s.mu.Unlock()
}

// Tools returns the server's tools for this turn: the cached list when there is one, otherwise a fresh listing.
func (s *Server) Tools(ctx context.Context, _ *toolset.Run) ([]*toolset.Tool, error) {
	if s.session == nil {
		return nil, fmt.Errorf("MCP server %q: no session", s.name)
	}
	if s.stopped.Load() {
		return []*toolset.Tool{}, nil
	}
	s.mu.Lock()
	if s.cached && s.tools != nil {
		out := append([]*toolset.Tool(nil), s.tools...)
		s.mu.Unlock()
		return out, nil
	}
	gen := s.gen
	s.mu.Unlock()

	var tools []*toolset.Tool
	for t, err := range s.session.Tools(ctx, nil) {
		if connectionClosed(err) && !s.closed.Load() {
			s.stop(ctx, err)
			return []*toolset.Tool{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing the tools of MCP server %q: %w", s.name, err)
		}
		if t == nil || (s.opts.Include != nil && !s.opts.Include(t)) {
			continue
		}
		if s.tasks.required(t.Name) {
			if s.opts.Logger != nil {
				s.opts.Logger.InfoContext(ctx, "MCP tool left out: it requires task-based execution, which this client does not support",
					"server", s.name, "tool", t.Name)
			}
			continue
		}
		tool, err := s.tool(t)
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	if tools == nil {
		tools = []*toolset.Tool{} // an empty list is a list, and is cached as one
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	// A notification that arrived while listing may describe a list newer than the one just read: keep it
	// uncached so the next turn lists again.
	if s.cached && s.gen == gen {
		s.tools = tools
	}
	return append([]*toolset.Tool(nil), tools...), nil
}

// tool makes the toolset tool for the server tool t.
func (s *Server) tool(t *sdk.Tool) (*toolset.Tool, error) {
	if t.Name == "" {
		return nil, &SchemaError{Server: s.name, Reason: "the server lists a tool without a name"}
	}
	schema, reason := inputSchema(t.InputSchema)
	if reason != "" {
		return nil, &SchemaError{Server: s.name, Tool: t.Name, Reason: reason}
	}
	readOnly := s.opts.readOnly(t)
	return &toolset.Tool{
		Name:             t.Name,
		Description:      description(t),
		Schema:           schema,
		ReadOnly:         readOnly,
		RequiresApproval: s.opts.requiresApproval(t, readOnly),
		ID:               "mcp:" + s.name + ":" + t.Name,
		Invoke:           s.invoker(t.Name),
		State:            s.state(t.Name),
	}, nil
}

// state returns the State of the tool named name, the same across refreshes of the list.
func (s *Server) state(name string) *toolset.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[name]
	if !ok {
		st = new(toolset.State)
		s.states[name] = st
	}
	return st
}

// description is the tool's description, or its title when the server gives no description.
func description(t *sdk.Tool) string {
	switch {
	case t.Description != "":
		return t.Description
	case t.Title != "":
		return t.Title
	case t.Annotations != nil:
		return t.Annotations.Title
	}
	return ""
}
