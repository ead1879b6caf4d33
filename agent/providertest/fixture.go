package providertest

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

// exchange is one recorded answer and what the request it answers must carry.
type exchange struct {
	status int
	header http.Header
	body   []byte
	want   []string
	reject []string
	// answered says the archive has the exchange's response file.
	answered bool
}

// fixture is a case's recorded exchanges.
type fixture struct {
	exchanges []exchange
	usage     string // the usage case's expected counts
	hold      bool   // keep the last stream open until the client goes
}

// loadFixture reads name.txtar from fsys; ok is false when there is none.
func loadFixture(t *testing.T, fsys fs.FS, name string) (f *fixture, ok bool) {
	t.Helper()
	data, err := fs.ReadFile(fsys, name+".txtar")
	if err != nil {
		return nil, false
	}
	f, err = parseFixture(txtar.Parse(data))
	if err != nil {
		t.Fatalf("fixture %s.txtar: %v", name, err)
	}
	return f, true
}

func parseFixture(a *txtar.Archive) (*fixture, error) {
	f := &fixture{}
	ex := func(n int) *exchange {
		for len(f.exchanges) < n {
			f.exchanges = append(f.exchanges, exchange{status: http.StatusOK, header: http.Header{}})
		}
		return &f.exchanges[n-1]
	}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if b, _, _ := strings.Cut(key, "."); b != "status" && b != "header" && b != "usage" && b != "hold" {
			continue // free text
		}
		base, n, err := numbered(key)
		if err != nil {
			return nil, err
		}
		switch base {
		case "status":
			s, err := strconv.Atoi(value)
			if err != nil || s < 100 || s > 999 {
				return nil, fmt.Errorf("status %q", value)
			}
			ex(n).status = s
		case "header":
			hk, hv, ok := strings.Cut(value, ":")
			if !ok {
				return nil, fmt.Errorf("header %q: want Name: value", value)
			}
			ex(n).header.Add(strings.TrimSpace(hk), strings.TrimSpace(hv))
		case "usage":
			f.usage = value
		case "hold":
			f.hold = value == "true"
		}
	}
	for _, file := range a.Files {
		base, n, err := numbered(file.Name)
		if err != nil {
			return nil, err
		}
		switch base {
		case "response":
			ex(n).body, ex(n).answered = file.Data, true
		case "want":
			ex(n).want = lines(file.Data)
		case "reject":
			ex(n).reject = lines(file.Data)
		default:
			return nil, fmt.Errorf("unknown file %q", file.Name)
		}
	}
	if len(f.exchanges) == 0 {
		return nil, fmt.Errorf("no response")
	}
	for i, ex := range f.exchanges {
		if !ex.answered {
			return nil, fmt.Errorf("exchange %d has no response file", i+1)
		}
	}
	return f, nil
}

// numbered splits "want.2" into "want" and 2; a name without a number is the first exchange's.
func numbered(name string) (string, int, error) {
	base, num, ok := strings.Cut(name, ".")
	if !ok {
		return name, 1, nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > 9 {
		return "", 0, fmt.Errorf("%q: the exchange number must be 1 to 9", name)
	}
	return base, n, nil
}

func lines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// server replays a fixture: the n-th request gets the n-th exchange.
type server struct {
	*httptest.Server
	f *fixture

	mu     sync.Mutex
	bodies []string
	gone   chan struct{} // closed when a held stream's client went away
}

func newServer(t *testing.T, f *fixture) *server {
	s := &server{f: f, gone: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if n >= len(s.f.exchanges) {
		http.Error(w, fmt.Sprintf("providertest: request %d, but the fixture has %d exchanges", n+1, len(s.f.exchanges)), http.StatusTeapot)
		return
	}
	ex := s.f.exchanges[n]
	for k, vs := range ex.header {
		w.Header()[k] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		if isStream(ex.body) {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	w.WriteHeader(ex.status)
	_, _ = w.Write(ex.body)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	if s.f.hold && n == len(s.f.exchanges)-1 {
		<-r.Context().Done()
		close(s.gone)
	}
}

func isStream(body []byte) bool {
	s := string(body)
	return strings.HasPrefix(s, "event:") || strings.HasPrefix(s, "data:") || strings.HasPrefix(s, ":")
}

// requests returns the bodies of the requests so far.
func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// checkRequests checks that the server got one request per exchange, each carrying what its exchange wants and
// nothing it rejects, beside what the case itself wants of request i (want[i]) and rejects of every request.
func (s *server) checkRequests(t *testing.T, want [][]string, reject []string) {
	t.Helper()
	bodies := s.requests()
	if len(bodies) != len(s.f.exchanges) {
		t.Errorf("the client sent %d requests; the fixture answers %d (are the SDK's retries off?)", len(bodies), len(s.f.exchanges))
	}
	for i, body := range bodies {
		if i >= len(s.f.exchanges) {
			break
		}
		ex := s.f.exchanges[i]
		var caseWant []string
		if i < len(want) {
			caseWant = want[i]
		}
		for _, w := range append(append([]string(nil), caseWant...), ex.want...) {
			if !strings.Contains(body, w) {
				t.Errorf("request %d does not contain %q:\n%s", i+1, w, shorten(body))
			}
		}
		for _, r := range append(append([]string(nil), reject...), ex.reject...) {
			if strings.Contains(body, r) {
				t.Errorf("request %d contains %q, which it must not:\n%s", i+1, r, shorten(body))
			}
		}
	}
}

func shorten(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "..."
	}
	return s
}
