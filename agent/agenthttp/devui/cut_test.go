package devui_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"sync"
)

// cutter passes requests to the API, and can cut the next watch stream after its n-th event, from the server's
// side, as a proxy or a restarted instance would: the handler's request ends, the connection's response ends.
// It records the Last-Event-ID of every watch request.
type cutter struct {
	next http.Handler

	mu       sync.Mutex
	cutAfter int      // events of the next watch stream before the cut; 0 for none
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
	n := c.cutAfter
	c.cutAfter = 0
	c.mu.Unlock()
	if n == 0 {
		c.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cw := &cutWriter{ResponseWriter: w, left: n, cut: func() {
		c.mu.Lock()
		c.cuts++
		c.mu.Unlock()
		cancel()
	}}
	c.next.ServeHTTP(cw, r.WithContext(ctx))
}

// armCut makes the next watch stream end after n events.
func (c *cutter) armCut(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cutAfter = n
}

func (c *cutter) state() (resumes []string, cuts int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.resumes...), c.cuts
}

var eventLine = regexp.MustCompile(`(?m)^event: `)

// cutWriter writes until the n-th event has gone out, then nothing more, and ends the request.
type cutWriter struct {
	http.ResponseWriter
	left int
	done bool
	cut  func()
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.done {
		return 0, io.ErrClosedPipe
	}
	n, err := w.ResponseWriter.Write(b)
	if eventLine.Match(b) {
		w.left--
		if w.left == 0 {
			w.Flush()
			w.done = true
			w.cut()
		}
	}
	return n, err
}

func (w *cutWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.done {
		f.Flush()
	}
}
