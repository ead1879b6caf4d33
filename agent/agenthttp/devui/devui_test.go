package devui_test

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp/devui"
)

// Every answer of the UI carries the headers that keep the page to its own origin.
func TestHeaders(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(devui.Handler(devui.Options{API: "/api/", TenantHeader: "X-Demo-Tenant"}))
	defer srv.Close()
	for _, tc := range []struct{ path, contentType string }{
		{"/", "text/html; charset=utf-8"},
		{"/index.html", "text/html; charset=utf-8"},
		{"/app.js", "text/javascript; charset=utf-8"},
		{"/style.css", "text/css; charset=utf-8"},
		{"/config.json", "application/json"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		is.NoErr(err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusOK)                       // tc.path
		is.Equal(resp.Header.Get("Content-Type"), tc.contentType)      // tc.path
		is.Equal(resp.Header.Get("X-Content-Type-Options"), "nosniff") // tc.path
		csp := resp.Header.Get("Content-Security-Policy")
		for _, d := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
			"frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
			is.True(strings.Contains(csp, d)) // tc.path, d
		}
		is.True(!strings.Contains(csp, "unsafe")) // no 'unsafe-inline', no 'unsafe-eval'
		if tc.path == "/config.json" {
			var c map[string]any
			is.NoErr(json.Unmarshal(body, &c))
			is.Equal(c, map[string]any{"api": "/api", "tenant_header": "X-Demo-Tenant", "eval_cases": false})
		}
	}
	resp, err := http.Post(srv.URL+"/", "application/json", strings.NewReader("{}"))
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusMethodNotAllowed)
	resp, err = http.Get(srv.URL + "/nothing.js")
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusNotFound)
}

// The page's files load nothing from another origin, have no inline script or style (which the policy would
// refuse anyway), and put no text into the page as HTML.
func TestStaticFiles(t *testing.T) {
	is := is.New(t)
	external := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//|@import|url\(\s*["']?(https?:)?//|from\s+["'](https?:)?//|import\(\s*["'](https?:)?//|fetch\(\s*["'](https?:)?//`)
	inline := regexp.MustCompile(`(?i)<script(\s[^>]*)?>[^<]+</script>|<style|\sstyle\s*=|\son[a-z]+\s*=`)
	asHTML := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|eval\(|new Function`)
	files := 0
	err := filepath.WalkDir("static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(data)
		if m := external.FindString(src); m != "" {
			t.Errorf("%s loads from another origin: %q", path, m)
		}
		if strings.HasSuffix(path, ".html") {
			if m := inline.FindString(src); m != "" {
				t.Errorf("%s has inline script or style: %q", path, m)
			}
		}
		if strings.HasSuffix(path, ".js") {
			if m := asHTML.FindString(src); m != "" {
				t.Errorf("%s parses text as HTML or code: %q", path, m)
			}
		}
		return nil
	})
	is.NoErr(err)
	is.True(files >= 6)
}

// The API handler serves no page of its own: the UI is there only where the application mounts devui.Handler.
func TestAPIServesNoUI(t *testing.T) {
	is := is.New(t)
	e := &env{t: t, model: newModel()}
	t.Cleanup(e.model.free)
	srv := httptest.NewServer(e.api(memoryStore()))
	defer srv.Close()
	for _, path := range []string{"/", "/index.html", "/app.js", "/dev/", "/config.json"} {
		resp, err := http.Get(srv.URL + path)
		is.NoErr(err)
		resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusNotFound)                        // path
		is.Equal(resp.Header.Get("Content-Type"), "application/problem+json") // path
	}
}
