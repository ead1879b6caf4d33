// Package devui is a development UI for the agents an agenthttp.Handler serves: a page of plain HTML, CSS and
// JavaScript modules, embedded in the binary, that talks only to the handler's public API. It shows the agents
// and their tools, the conversations, streamed runs with their tool calls, approvals, plan mode, steering, the
// watch stream and the tenant's settings.
//
// Nothing serves it unless the application mounts it:
//
//	mux.Handle("/api/", http.StripPrefix("/api", api))
//	mux.Handle("/dev/", http.StripPrefix("/dev", devui.Handler(devui.Options{API: "/api"})))
//
// The page can do what any client of the API can, and no more: it has no route of its own besides its files. With
// Options.EvalCases it saves a conversation as an eval case, through the API's GET /conversations/{id}/eval-case.
// See docs/dev-ui.md.
package devui

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// Options configure the UI.
type Options struct {
	// API is the path the agenthttp.Handler is mounted at, on the UI's own origin, such as "/api". Required.
	API string
	// TenantHeader, for development only, names the request header the UI sends with the tenant the user types
	// in, for an API whose authentication reads the tenant from that header (agenthttp's DevelopmentTenantHeader
	// or a demo's own). Empty means the UI sends no header of its own, and the browser's cookies authenticate it.
	TenantHeader string
	// EvalCases shows "Save as eval case" on a conversation, which downloads the case the API makes of it (GET
	// /conversations/{id}/eval-case): set it when the API's agenthttp.Options.EvalCase is set
	// (evalhttp.Case). False hides the action.
	EvalCases bool
}

// contentSecurityPolicy allows the page only its own origin: scripts and styles come from its files (no inline
// script or style), it fetches only from its own origin, and no other page may frame it.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler returns the handler that serves the UI: index.html at its root, its modules and style sheet, and
// config.json, which tells the page where the API is. Mount it under any prefix with http.StripPrefix.
func Handler(opts Options) http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil { // the embedded directory is part of the package, so this does not happen
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "the dev UI's files are missing", http.StatusInternalServerError)
		})
	}
	config, _ := json.Marshal(map[string]any{"api": strings.TrimSuffix(opts.API, "/"), "tenant_header": opts.TenantHeader,
		"eval_cases": opts.EvalCases})
	fileServer := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch strings.TrimPrefix(r.URL.Path, "/") {
		case "config.json":
			h.Set("Content-Type", "application/json")
			_, _ = w.Write(config)
			return
		case "", "index.html":
			// Served by name, so that FileServer's redirect of /index.html to / does not apply.
			data, _ := fs.ReadFile(static, "index.html")
			h.Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(data)
			return
		}
		fileServer.ServeHTTP(w, r)
	})
}
