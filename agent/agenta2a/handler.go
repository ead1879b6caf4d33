package agenta2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/storage"
)

// ProtocolVersion is the version of the A2A protocol the handler speaks, as its card says.
const ProtocolVersion = "0.3.0"

// CardPath is where the handler serves the agent's card, under the prefix it is mounted at.
const CardPath = a2asrv.WellKnownAgentCardPath

// Options configure a Handler. Store and either Authenticate or DevelopmentTenantHeader are required.
type Options struct {
	// Authenticate decides who a request comes from: the same function as agenthttp.Options.Authenticate. The
	// tenant it returns is the only one the request can reach: no A2A field names a tenant.
	Authenticate func(*http.Request) (agenthttp.Principal, error)
	// DevelopmentTenantHeader, for development only, takes the tenant from this request header when Authenticate
	// is nil. Any client can then act as any tenant: New logs a warning saying so.
	DevelopmentTenantHeader string
	// Store keeps the conversations: the same store as the host's agent.Config.Store.
	Store storage.Store

	// URL is the absolute URL of the JSON-RPC endpoint the card names, such as "https://api.example.com/a2a/".
	// Empty means: the URL the card was fetched from, without CardPath.
	URL string
	// Description describes the agent on its card; empty means "The <name> agent.".
	Description string
	// Version is the agent's version on its card; empty means "1".
	Version string
	// Provider names the organisation serving the agent on its card; nil leaves it out.
	Provider *a2a.AgentProvider
	// SecuritySchemes describe to clients how Authenticate authenticates them, on the card; every scheme is
	// required. Nil means an HTTP bearer scheme named "bearer" with Authenticate, and an API key in the
	// development header with DevelopmentTenantHeader.
	SecuritySchemes a2a.NamedSecuritySchemes

	// MaxBodyBytes bounds a request body; zero means 1 MiB. A longer body answers a JSON-RPC parse error.
	MaxBodyBytes int64
	// RunTimeout bounds a run, which goes on when its client disconnects; zero means 10 minutes.
	RunTimeout time.Duration
	// Poll is how often a resubscribed stream checks the store for a run that ended where it could not see it
	// (on an instance that crashed, say); zero means 1 s.
	Poll time.Duration
	// Logger receives the errors clients do not see; nil means slog.Default().
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultRunTimeout   = 10 * time.Minute
	DefaultPoll         = time.Second
)

// Handler serves one agent over A2A: its card at CardPath, and the JSON-RPC methods at the root of where it is
// mounted.
type Handler struct {
	opts   Options
	host   *agent.Host
	auth   func(*http.Request) (agenthttp.Principal, error)
	log    *slog.Logger
	card   a2a.AgentCard // without URL when Options.URL is empty
	rpc    http.Handler
	mu     sync.Mutex
	active map[liveKey]*liveRun // runs of this process, to cancel them
}

// liveKey names a conversation of a tenant.
type liveKey struct{ settingsID, conversationID string }

// liveRun is a run this process goes on with: its cancellation, done closed at its end, and its task as it
// started, which is all there is of it until the run has stored its start.
type liveRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	start  *taskView
}

// New returns a handler serving host's agent. It reads the agent's tools once, for its card.
func New(host *agent.Host, opts Options) (*Handler, error) {
	if host == nil {
		return nil, errors.New("agenta2a: a nil host")
	}
	if opts.Store == nil {
		return nil, errors.New("agenta2a: Options.Store is required")
	}
	h := &Handler{opts: opts, host: host, log: opts.Logger, active: map[liveKey]*liveRun{}}
	if h.log == nil {
		h.log = slog.Default()
	}
	switch {
	case opts.Authenticate != nil:
		h.auth = opts.Authenticate
		if h.opts.SecuritySchemes == nil {
			h.opts.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}
		}
	case opts.DevelopmentTenantHeader != "":
		header := opts.DevelopmentTenantHeader
		h.log.Warn("agenta2a: DEVELOPMENT AUTHENTICATION: the tenant comes from a request header that any client can set; never serve this to a network",
			"header", header)
		h.auth = func(r *http.Request) (agenthttp.Principal, error) {
			id := r.Header.Get(header)
			if id == "" {
				return agenthttp.Principal{}, fmt.Errorf("no %s header: %w", header, agenthttp.ErrUnauthenticated)
			}
			return agenthttp.Principal{SettingsID: id, User: id}, nil
		}
		if h.opts.SecuritySchemes == nil {
			h.opts.SecuritySchemes = a2a.NamedSecuritySchemes{"tenant": a2a.APIKeySecurityScheme{In: a2a.APIKeySecuritySchemeInHeader, Name: header}}
		}
	default:
		return nil, errors.New("agenta2a: Options.Authenticate is required: it returns the tenant of each request; " +
			"for development on your own machine only, Options.DevelopmentTenantHeader takes it from a request header instead")
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if h.opts.RunTimeout <= 0 {
		h.opts.RunTimeout = DefaultRunTimeout
	}
	if h.opts.Poll <= 0 {
		h.opts.Poll = DefaultPoll
	}
	card, err := h.buildCard(context.Background())
	if err != nil {
		return nil, err
	}
	h.card = card
	h.rpc = a2asrv.NewJSONRPCHandler(&requests{h: h})
	return h, nil
}

// principalKey finds the request's principal in its context.
type principalKey struct{}

// PrincipalFrom returns the principal an A2A request was authenticated as; the tools of the runs it starts are
// given a context that carries it too.
func PrincipalFrom(ctx context.Context) (agenthttp.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(agenthttp.Principal)
	return p, ok
}

// ServeHTTP serves the card (GET CardPath, public) and the JSON-RPC methods (POST /, authenticated).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == CardPath && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		h.serveCard(w, r)
		return
	case r.URL.Path == CardPath:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	case r.URL.Path != "/" && r.URL.Path != "":
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		// The SDK answers any other method with a JSON-RPC invalid-request error.
		h.rpc.ServeHTTP(w, r)
		return
	}
	p, err := h.auth(r)
	if err == nil && p.SettingsID == "" {
		err = errors.New("the principal has no settings id")
	}
	if err == nil {
		err = storage.CheckIDs(p.SettingsID)
	}
	if err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "agenta2a: authentication failed", slog.String("error", err.Error()))
		for name, s := range h.opts.SecuritySchemes {
			if hs, ok := s.(a2a.HTTPAuthSecurityScheme); ok {
				w.Header().Add("WWW-Authenticate", hs.Scheme+` realm="`+string(name)+`"`)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not authenticated"}}` + "\n"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
	r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
	w.Header().Set("Content-Type", "application/json") // a stream's writer sets text/event-stream over it
	h.rpc.ServeHTTP(w, r)
}

// principal returns the principal ServeHTTP put in ctx.
func principal(ctx context.Context) agenthttp.Principal {
	p, _ := PrincipalFrom(ctx)
	return p
}

// runContext is the context a run goes on in: the request's values (the principal), without its cancellation, so
// a client that disconnects leaves the run to finish; bounded by RunTimeout, and cancellable by tasks/cancel.
func (h *Handler) runContext(ctx context.Context, key liveKey, start *taskView) (context.Context, *liveRun, bool) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.opts.RunTimeout)
	lr := &liveRun{cancel: cancel, done: make(chan struct{}), start: start}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, busy := h.active[key]; busy {
		cancel()
		return nil, nil, false
	}
	h.active[key] = lr
	return rctx, lr, true
}

// runEnded forgets a run of this process.
func (h *Handler) runEnded(key liveKey, lr *liveRun) {
	h.mu.Lock()
	if h.active[key] == lr {
		delete(h.active, key)
	}
	h.mu.Unlock()
	lr.cancel()
	close(lr.done)
}

// live returns the run of this process in the conversation, if there is one.
func (h *Handler) live(key liveKey) *liveRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active[key]
}
