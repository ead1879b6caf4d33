package devui_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"sync"
)

// cutter passes requests to the API, and can cut the next watch stream after the first event of a name, from the
// server's side, as a proxy or a restarted instance would: the handler's request ends, the connection's response
// ends.
// It records the Last-Event-ID of every watch request.
type cutter struct {
	next http.Handler

	mu       sync.Mutex
	cutAfter string   // the event of the next watch stream after which it is cut; "" for none
	resumes  []string // the Last-Event-ID of each watch request
	cuts     int
}

var watchPath = regexp.MustCompile(`^/conversations/[^/]+/events$`)

func (c *cutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !watchPath.MatchString(r.URL.Path) {
		c.next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	c.resumes = append(c.resumes, r.Header.Get("Last-Event-ID"))
	name := c.cutAfter
	c.cutAfter = ""
	c.mu.Unlock()
	if name == "" {
		c.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cw := &cutWriter{ResponseWriter: w, at: regexp.MustCompile(`(?m)^event: ` + regexp.QuoteMeta(name) + `$`), cut: func() {
		c.mu.Lock()
		c.cuts++
		c.mu.Unlock()
		cancel()
	}}
	c.next.ServeHTTP(cw, r.WithContext(ctx))
}

// armCut makes the next watch stream end after its first event of the name.
func (c *cutter) armCut(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cutAfter = name
}

func (c *cutter) state() (resumes []string, cuts int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.resumes...), c.cuts
}

// cutWriter writes until an event that at matches has gone out, then nothing more, and ends the request.
type cutWriter struct {
	http.ResponseWriter
	at   *regexp.Regexp
	done bool
	cut  func()
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.done {
		return 0, io.ErrClosedPipe
	}
	n, err := w.ResponseWriter.Write(b)
	if w.at.Match(b) {
		w.Flush()
		w.done = true
		w.cut()
	}
	return n, err
}

func (w *cutWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.done {
		f.Flush()
	}
}
