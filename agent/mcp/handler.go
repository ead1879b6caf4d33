package mcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/toolset"
)

// Authenticate says whom an HTTP request comes from, from its credentials (a bearer token, a session cookie, a
// client certificate). An error refuses the request with 401 Unauthorized; its text is logged, not sent.
type Authenticate func(r *http.Request) (Principal, error)

// HandlerOptions configure [Handler]: the served source's options, and the SDK's streamable HTTP options.
type HandlerOptions struct {
	ServeOptions
	// HTTP configures the SDK's streamable HTTP handler; it is copied. Nil means the SDK's defaults: stateful
	// sessions, which elicitation needs.
	HTTP *sdk.StreamableHTTPOptions
}

// Handler serves the tools of src over MCP's streamable HTTP transport, as an [http.Handler] to mount beside the
// application's other routes. Every request is authenticated by auth before the SDK reads it: the principal,
// and so the tenant whose settings apply, comes from the request and never from the client's arguments. A
// session belongs to the principal that started it; a request that names another principal's session is
// answered 404 Not Found, as if the session did not exist.
func Handler(src toolset.Source, auth Authenticate, opts *HandlerOptions) http.Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	h := &handler{ts: newToolServer(src, &o.ServeOptions), auth: auth, key: make([]byte, 32)}
	_, _ = rand.Read(h.key)
	var ho sdk.StreamableHTTPOptions
	if o.HTTP != nil {
		ho = *o.HTTP
	}
	h.sdk = sdk.NewStreamableHTTPHandler(h.server, &ho)
	return h
}

type handler struct {
	ts   *toolServer
	auth Authenticate
	sdk  *sdk.StreamableHTTPHandler
	// key signs session ids with their principal, so that a session id proves whose session it is.
	key []byte
	// servers holds one SDK server per principal; the SDK asks for one on every request.
	servers sync.Map // Principal -> *sdk.Server
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.auth == nil {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	p, err := h.auth(r)
	if err != nil {
		h.ts.logger().InfoContext(r.Context(), "MCP server: request not authenticated", "error", err)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" && !h.owns(p, id) {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	h.sdk.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
}

// server returns the SDK server of the request's principal, which ServeHTTP put in its context.
func (h *handler) server(r *http.Request) *sdk.Server {
	p, ok := PrincipalFrom(r.Context())
	if !ok {
		return nil
	}
	if s, ok := h.servers.Load(p); ok {
		return s.(*sdk.Server)
	}
	s := h.ts.server(p, func(so *sdk.ServerOptions) {
		so.GetSessionID = func() string { return rand.Text() + "." + h.sign(p) }
	})
	actual, _ := h.servers.LoadOrStore(p, s)
	return actual.(*sdk.Server)
}

// sign returns the MAC of the principal that a session id carries after its last dot.
func (h *handler) sign(p Principal) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(p.SettingsID))
	m.Write([]byte{0})
	m.Write([]byte(p.Subject))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// owns reports whether the session id was made for p.
func (h *handler) owns(p Principal, id string) bool {
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return false
	}
	return hmac.Equal([]byte(id[i+1:]), []byte(h.sign(p)))
}
