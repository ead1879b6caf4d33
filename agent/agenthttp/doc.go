// Package agenthttp serves agents to browsers: an http.Handler over [agent.Host]s that speaks a native JSON and
// Server-Sent Events API, AG-UI and the AI SDK's UI message stream, over the same runs, approvals and tenant walls.
//
//	h, err := agenthttp.New([]*agent.Host{support}, agenthttp.Options{
//		Store:        store,
//		Authenticate: func(r *http.Request) (agenthttp.Principal, error) { ... }, // the application's own
//	})
//	mux.Handle("/api/", http.StripPrefix("/api", h))
//
// The tenant of every request is the settings id the application's Authenticate returns, never a path, query or
// body value. Errors are application/problem+json (RFC 9457) with a stable type per error (see the Problem
// constants). A run goes on to its end when its client disconnects, and stays watchable. See docs/http.md.
package agenthttp
