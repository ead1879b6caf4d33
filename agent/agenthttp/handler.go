package agenthttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/storage"
)

// A Principal is who a request comes from, as the application's authentication decided.
type Principal struct {
	// SettingsID is the tenant: every conversation and settings document the request reaches is this tenant's.
	SettingsID string
	// User names the person, for logs and for the application's tools; Typeshift does not interpret it.
	User string
	// Operator marks a request of the service's operator rather than of an end user of the tenant: it may write
	// the tenant's budget (PUT /budget) and the settings only the operator may change (Options.OperatorSettings).
	// Set it only for requests the application's own authentication proves are the operator's.
	Operator bool
}

// ErrUnauthenticated is what an Authenticate function returns (or wraps) for a request without valid credentials:
// it answers 401. Any other error answers 401 too, without its text.
var ErrUnauthenticated = errors.New("agenthttp: not authenticated")

// Options configure a Handler. Store and either Authenticate or DevelopmentTenantHeader are required.
type Options struct {
	// Authenticate decides who a request comes from. The tenant it returns is the only one the request can reach:
	// no path, query or body names a tenant.
	Authenticate func(*http.Request) (Principal, error)
	// DevelopmentTenantHeader, for development only, takes the tenant from this request header when Authenticate
	// is nil. Any client can then act as any tenant: New logs a warning saying so.
	DevelopmentTenantHeader string

	// Store keeps the conversations and settings the hosts use: the same store as their agent.Config.Store.
	Store storage.Store
	// Descriptions describe the agents in the list, by agent name.
	Descriptions map[string]string
	// Budget, when set, is the agent.Config.Meter of the hosts: GET /budget reads the tenant's budget through
	// it, and PUT /budget writes it for the operator. Nil answers those routes 404.
	Budget *budget.Meter
	// OperatorSettings are the top-level keys of an agent's settings that only a request with Principal.Operator
	// may change through the settings route; nil means DefaultOperatorSettings, and an empty list none. A tenant
	// that tries answers 403.
	OperatorSettings []string
	// EvalCase, when set, serves GET /conversations/{id}/eval-case: it makes an eval case of the stored entries of
	// the tenant's conversation, as a case file holds it. Set it to evalhttp.Case (package agent/eval/evalhttp); nil
	// answers that route 404. It is a function, not a route of this package's own, so that a server links package
	// eval (test tooling: it imports testing and the OpenTelemetry SDK) only when it asks for cases.
	EvalCase func(ctx context.Context, entries []storage.Entry, req CaseRequest) ([]byte, error)
	// Background, when set, serves the tenant's background runs (GET /background/{id}, POST
	// /background/{id}/cancel); nil answers those routes 404.
	Background *background.Manager

	// AllowedOrigins are the origins browsers may call the API from (CORS). Empty means none: no CORS headers are
	// sent, and browsers allow only same-origin calls.
	AllowedOrigins []string
	// MaxBodyBytes bounds a request body; zero means 1 MiB. A longer body answers 413.
	MaxBodyBytes int64
	// ClientModes are the modes a client may ask a run for; nil means agent.ModeDefault and agent.ModePlan.
	// agent.ModeAuto approves every call, so it is offered only when listed.
	ClientModes []string
	// RunTimeout bounds a run, which goes on when its client disconnects; zero means 10 minutes.
	RunTimeout time.Duration
	// Heartbeat is how often an idle event stream sends a comment, so proxies keep it open; zero means 15 s.
	Heartbeat time.Duration
	// WriteTimeout bounds each write of an event stream (a run's or a watch's): a client that does not take an
	// event within it is cut off, and its run goes on to its end without it. Zero means 30 s.
	WriteTimeout time.Duration

	// Logger receives a line per request and the errors clients do not see; nil means slog.Default().
	Logger *slog.Logger
	// TracerProvider makes the request spans, the parents of the runs' spans; nil means otel's global provider.
	TracerProvider trace.TracerProvider
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultRunTimeout   = 10 * time.Minute
	DefaultHeartbeat    = 15 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// Handler serves the hosts' agents over HTTP: the native JSON and Server-Sent Events API, AG-UI and the AI SDK's
// UI message stream. See docs/http.md.
type Handler struct {
	opts  Options
	hosts map[string]*agent.Host
	names []string // in the order given
	// openAPIDoc is the document GET /openapi.json serves: the native API's with the agents' answer schemas.
	openAPIDoc []byte
	mux        *http.ServeMux
	log        *slog.Logger
	tracer     trace.Tracer
	auth       func(*http.Request) (Principal, error)
	// unauthenticated answers a request authentication refuses: under development authentication it names the
	// header the tenant comes from.
	unauthenticated *httpError
}

// New returns a handler serving the hosts, each by its agent's name. Mount it under any prefix with
// http.StripPrefix.
func New(hosts []*agent.Host, opts Options) (*Handler, error) {
	h := &Handler{opts: opts, hosts: map[string]*agent.Host{}, mux: http.NewServeMux(), log: opts.Logger}
	if h.log == nil {
		h.log = slog.Default()
	}
	if opts.Store == nil {
		return nil, errors.New("agenthttp: Options.Store is required")
	}
	if len(hosts) == 0 {
		return nil, errors.New("agenthttp: no hosts to serve")
	}
	for _, host := range hosts {
		if host == nil {
			return nil, errors.New("agenthttp: a nil host")
		}
		name := host.Name()
		if _, dup := h.hosts[name]; dup {
			return nil, fmt.Errorf("agenthttp: two hosts serve the agent %q", name)
		}
		h.hosts[name] = host
		h.names = append(h.names, name)
	}
	switch {
	case opts.Authenticate != nil:
		h.auth = opts.Authenticate
	case opts.DevelopmentTenantHeader != "":
		header := opts.DevelopmentTenantHeader
		h.log.Warn("agenthttp: DEVELOPMENT AUTHENTICATION: the tenant comes from a request header that any client can set; never serve this to a network",
			"header", header)
		h.unauthenticated = &httpError{status: http.StatusUnauthorized, kind: ProblemUnauthenticated,
			detail: "the request is not authenticated: this server's development authentication takes the tenant from the " +
				header + " request header, which the request lacks; send " + header + ": <tenant id>"}
		h.auth = func(r *http.Request) (Principal, error) {
			id := r.Header.Get(header)
			if id == "" {
				return Principal{}, fmt.Errorf("no %s header: %w", header, ErrUnauthenticated)
			}
			return Principal{SettingsID: id, User: id}, nil
		}
	default:
		return nil, errors.New("agenthttp: Options.Authenticate is required: it returns the tenant of each request; " +
			"for development on your own machine only, Options.DevelopmentTenantHeader takes it from a request header instead")
	}
	for _, o := range opts.AllowedOrigins {
		if o == "*" || o == "" || strings.HasSuffix(o, "/") {
			return nil, fmt.Errorf("agenthttp: allowed origin %q: give each origin as scheme://host[:port]", o)
		}
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if h.opts.ClientModes == nil {
		h.opts.ClientModes = []string{agent.ModeDefault, agent.ModePlan}
	}
	if h.opts.RunTimeout <= 0 {
		h.opts.RunTimeout = DefaultRunTimeout
	}
	if h.opts.Heartbeat <= 0 {
		h.opts.Heartbeat = DefaultHeartbeat
	}
	if h.opts.WriteTimeout <= 0 {
		h.opts.WriteTimeout = DefaultWriteTimeout
	}
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	h.tracer = tp.Tracer("github.com/typeshift-go/typeshift/agent/agenthttp")
	doc, err := h.buildOpenAPI()
	if err != nil {
		return nil, err
	}
	h.openAPIDoc = doc
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	h.handle("GET /openapi.json", h.openAPI, false)
	h.handle("GET /agents", h.listAgents, true)
	h.handle("GET /agents/{agent}", h.getAgent, true)
	h.handle("GET /agents/{agent}/settings", h.getSettings, true)
	h.handle("PUT /agents/{agent}/settings", h.putSettings, true)
	h.handle("DELETE /agents/{agent}/settings", h.deleteSettings, true)
	h.handle("POST /agents/{agent}/agui", h.agui, true)
	h.handle("POST /agents/{agent}/ui-message-stream", h.uiMessageStream, true)
	h.handle("GET /agents/{agent}/ui-message-stream/{id}/stream", h.uiResume, true)
	h.handle("GET /conversations", h.listConversations, true)
	h.handle("POST /conversations", h.createConversation, true)
	h.handle("GET /conversations/{id}", h.getConversation, true)
	h.handle("DELETE /conversations/{id}", h.deleteConversation, true)
	h.handle("POST /conversations/{id}/runs", h.postRun, true)
	h.handle("POST /conversations/{id}/steering", h.postSteering, true)
	h.handle("GET /conversations/{id}/events", h.watch, true)
	h.handle("GET /conversations/{id}/eval-case", h.getEvalCase, true)
	h.handle("GET /budget", h.getBudget, true)
	h.handle("PUT /budget", h.putBudget, true)
	h.handle("GET /background/{id}", h.getBackground, true)
	h.handle("POST /background/{id}/cancel", h.cancelBackground, true)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, h.log, errRoute)
	})
}

// requestInfo carries what the route learnt back to ServeHTTP, for the log line and the span.
type requestInfo struct {
	principal     Principal
	authenticated bool
}

type infoKey struct{}

// principalKey finds the request's Principal in its context.
type principalKey struct{}

// PrincipalFrom returns the principal the request was authenticated as, inside the handler (for the tools of a
// run, the context they are given carries it too).
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// handle registers a route; with auth, the request is authenticated before fn sees it.
func (h *Handler) handle(pattern string, fn func(http.ResponseWriter, *http.Request) error, auth bool) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if auth {
			p, err := h.auth(r)
			if err == nil && p.SettingsID == "" {
				err = errors.New("the principal has no settings id")
			}
			if err != nil {
				problem := errUnauthenticated
				attrs := []slog.Attr{slog.String("error", err.Error())}
				if h.unauthenticated != nil {
					problem = h.unauthenticated
					attrs = append(attrs, slog.String("header", h.opts.DevelopmentTenantHeader),
						slog.String("fix", "send the tenant id in the "+h.opts.DevelopmentTenantHeader+" header (Options.DevelopmentTenantHeader)"))
				}
				h.log.LogAttrs(r.Context(), slog.LevelInfo, "agenthttp: authentication failed", attrs...)
				writeProblem(w, r, h.log, problem)
				return
			}
			if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
				info.principal, info.authenticated = p, true
			}
			r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
		}
		if err := checkRequestText(r.PathValue, r.URL.Query()); err != nil {
			writeProblem(w, r, h.log, err)
			return
		}
		if err := fn(w, r); err != nil {
			writeProblem(w, r, h.log, err)
		}
	})
}

// ServeHTTP serves one request: CORS, the request span and log line, the content-type rule for state-changing
// requests, then the route.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if h.cors(w, r) {
		return
	}
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := h.tracer.Start(ctx, r.Method+" "+r.URL.Path, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
	defer span.End()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	info := &requestInfo{}
	r = r.WithContext(context.WithValue(ctx, infoKey{}, info))
	if stateChanging(r.Method) && r.ContentLength != 0 && !isJSON(r.Header.Get("Content-Type")) {
		writeProblem(rec, r, h.log, errMediaType)
	} else {
		h.mux.ServeHTTP(rec, r)
	}
	if pattern := r.Pattern; pattern != "" {
		span.SetName(pattern)
		span.SetAttributes(attribute.String("http.route", pattern))
	}
	span.SetAttributes(attribute.Int("http.response.status_code", rec.status))
	if rec.status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(rec.status))
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Duration("duration", time.Since(start)), slog.Int64("bytes", rec.bytes)}
	if info.authenticated {
		attrs = append(attrs, slog.String("settings_id", info.principal.SettingsID), slog.String("user", info.principal.User))
		span.SetAttributes(attribute.String("typeshift.settings_id", info.principal.SettingsID))
	}
	if rec.problem != "" {
		attrs = append(attrs, slog.String("problem", rec.problem))
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "agenthttp: request", attrs...)
}

// cors answers preflight requests and sets the CORS headers of allowed origins. It reports whether the request
// was answered.
func (h *Handler) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !slices.Contains(h.opts.AllowedOrigins, origin) {
		return false
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Expose-Headers", "ETag, Location, X-Vercel-Ai-Ui-Message-Stream")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		hd.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE")
		hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-None-Match, Last-Event-ID")
		hd.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

func stateChanging(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch || method == http.MethodDelete
}

// recorder keeps the status and size of a response for the log line and the span.
type recorder struct {
	http.ResponseWriter
	status  int
	bytes   int64
	problem string
	wrote   bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's Flush and deadlines.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// principal returns the request's principal; routes registered with auth always have one.
func principal(r *http.Request) Principal {
	p, _ := PrincipalFrom(r.Context())
	return p
}

// host returns the host of the named agent, or the unknown-agent problem.
func (h *Handler) host(name string) (*agent.Host, error) {
	if host, ok := h.hosts[name]; ok {
		return host, nil
	}
	return nil, &unknownAgentError{Name: name}
}

// hostFor returns the host a run names, or the only one when it names none.
func (h *Handler) hostFor(name string) (*agent.Host, error) {
	if name == "" {
		if len(h.names) == 1 {
			return h.hosts[h.names[0]], nil
		}
		return nil, &fieldError{Pointer: "/agent", Detail: "required: the handler serves more than one agent"}
	}
	return h.host(name)
}

// runContext is the context a run goes on in: the request's values (the principal, the span), without its
// cancellation, so a client that disconnects leaves the run to finish; bounded by RunTimeout.
func (h *Handler) runContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), h.opts.RunTimeout)
}
