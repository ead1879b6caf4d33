package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/agenthttp/devui"
	"github.com/typeshift-go/typeshift/agent/eval/evalhttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// demoTenantHeader names the tenant of a request to the demo server. DEMO ONLY: any client can set a header, so
// a real service decides the tenant from its own authentication (a session, a verified token) instead.
const demoTenantHeader = "X-Demo-Tenant"

// serveHTTP serves the support agent over HTTP on addr (see docs/http.md) until ctx ends: the native API, AG-UI
// and the AI SDK's UI message stream, under /api/, A2A for other agents under /a2a/ (docs/a2a.md), and the dev UI
// (docs/dev-ui.md) under /dev/. The address must be a loopback one: the demo authentication
// would let anyone on a network act as any tenant.
func serveHTTP(ctx context.Context, addr string, o options, out io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-http %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-http %s: the demo serves loopback addresses only, such as 127.0.0.1:8080", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return serve(ctx, ln, o, out)
}

// serve serves the API on ln until ctx ends.
func serve(ctx context.Context, ln net.Listener, o options, out io.Writer) error {
	store, closeStore, err := openStore(ctx, out)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeStore()
	cfg := agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Store:    store,
	}
	useModel(&cfg, o, out, true)
	var remote *agenta2a.Remote
	if o.a2aAgent != "" {
		// Another team's agent, called over A2A as a tool; its questions reach the user as approval requests.
		// A2A_AGENT_TOKEN goes where the card asks for it: an API key's header (as this demo's card does), or a
		// bearer token.
		token := os.Getenv("A2A_AGENT_TOKEN")
		remote, err = agenta2a.Dial(ctx, o.a2aAgent, &agenta2a.RemoteOptions{Authorize: func(r *http.Request) error {
			if token == "" || remote == nil { // the card itself is public
				return nil
			}
			for _, s := range remote.Card().SecuritySchemes {
				if k, ok := s.(a2a.APIKeySecurityScheme); ok && k.In == a2a.APIKeySecuritySchemeInHeader {
					r.Header.Set(k.Name, token)
					return nil
				}
			}
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}})
		if err != nil {
			ln.Close()
			return err
		}
		cfg.Tools = append(cfg.Tools, remote.Tools())
		fmt.Fprintf(out, "Calling the A2A agent %s as the tool %s.\n", remote.Card().Name, remote.Tools()[0].Name)
	}
	host, err := agent.NewHost(&Support{}, cfg)
	if err != nil {
		ln.Close()
		return err
	}
	if remote != nil {
		remote.Register(host)
	}
	logger := slog.New(slog.NewTextHandler(out, nil))
	api, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{
		Store:        store,
		Authenticate: demoAuthenticate,
		Descriptions: map[string]string{"Support": "Answers questions about support tickets and closes them with your approval."},
		Logger:       logger,
		// Eval cases of the demo's conversations (GET /api/conversations/{id}/eval-case, and the dev UI's "Save as
		// eval case"): a development server's choice, since it links package eval.
		EvalCase: evalhttp.Case,
	})
	if err != nil {
		ln.Close()
		return err
	}
	// The same agent, runs, approvals and tenants, served to other agents over A2A: the card at
	// /a2a/.well-known/agent-card.json, the JSON-RPC endpoint at /a2a/.
	a2aHandler, err := agenta2a.New(host, agenta2a.Options{
		Store:        store,
		Authenticate: demoAuthenticate,
		Description:  "Answers questions about support tickets and closes them with your approval.",
		// The card tells clients how to authenticate: here, the demo's header.
		SecuritySchemes: a2a.NamedSecuritySchemes{"demo-tenant": a2a.APIKeySecurityScheme{In: a2a.APIKeySecuritySchemeInHeader, Name: demoTenantHeader}},
		Logger:          logger,
	})
	if err != nil {
		ln.Close()
		return err
	}
	logger.Warn("DEMO AUTHENTICATION: the tenant comes from the " + demoTenantHeader + " header, from loopback clients only; never serve this to a network")
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))
	mux.Handle("/a2a/", http.StripPrefix("/a2a", a2aHandler))
	// The dev UI, for this demo: a production handler mounts it only where developers reach it, if at all.
	mux.Handle("/dev/", http.StripPrefix("/dev", devui.Handler(devui.Options{API: "/api", TenantHeader: demoTenantHeader, EvalCases: true})))
	mux.Handle("GET /{$}", http.RedirectHandler("/dev/", http.StatusFound))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "Serving the support agent on http://%s/api/ (the OpenAPI document: /api/openapi.json).\n", ln.Addr())
	fmt.Fprintf(out, "Other agents reach it over A2A: http://%s/a2a/.well-known/agent-card.json\n", ln.Addr())
	fmt.Fprintf(out, "Open the dev UI: http://%s/dev/\n", ln.Addr())
	fmt.Fprintf(out, "Try: curl -s -H '%s: demo' http://%s/api/agents\n", demoTenantHeader, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// demoAuthenticate is the demo's authentication, DEMO ONLY: the tenant named by the X-Demo-Tenant header, for
// clients on the loopback interface. Replace it with the application's own.
func demoAuthenticate(r *http.Request) (agenthttp.Principal, error) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return agenthttp.Principal{}, fmt.Errorf("demo authentication: %s is not a loopback client: %w", r.RemoteAddr, agenthttp.ErrUnauthenticated)
	}
	tenant := r.Header.Get(demoTenantHeader)
	if tenant == "" {
		return agenthttp.Principal{}, fmt.Errorf("demo authentication: no %s header: %w", demoTenantHeader, agenthttp.ErrUnauthenticated)
	}
	return agenthttp.Principal{SettingsID: tenant, User: tenant}, nil
}
