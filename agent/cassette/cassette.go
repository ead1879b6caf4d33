package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// EnvRecord is the environment variable that switches recording on: TYPESHIFT_RECORD=1 (or true) records every
// cassette the tests open; replay is the default.
const EnvRecord = "TYPESHIFT_RECORD"

// Mode says whether a [Recorder] records or replays.
type Mode int

const (
	// FromEnv records when [EnvRecord] is set to 1 or true, and replays otherwise.
	FromEnv Mode = iota
	// Replay answers each request from the cassette and never reaches the network.
	Replay
	// Record sends each request on and writes the exchanges to the cassette when the test ends.
	Record
)

// Recording reports whether [EnvRecord] asks the tests to record.
func Recording() bool {
	v := strings.ToLower(os.Getenv(EnvRecord))
	return v == "1" || v == "true"
}

// Options configure a [Recorder]. The zero value records on [EnvRecord], scrubs the usual secrets and redacts
// nothing.
type Options struct {
	// Mode is FromEnv when zero.
	Mode Mode
	// Transport sends the requests when recording; nil means [http.DefaultTransport].
	Transport http.RoundTripper
	// Scrub names request and response headers whose values never reach the file, beside those of
	// [ScrubbedHeaders].
	Scrub []string
	// Redact names JSON fields, at any depth of a request's or a response's body (a streamed response's events
	// included), whose values are written as [Redacted]. A request's fields are redacted before it is matched
	// too, so a redacted value may differ from one run to the next.
	Redact []string
	// AllowUnused lets a test end with recorded exchanges that no request asked for. By default that fails the
	// test: the agent made fewer calls than when it was recorded.
	AllowUnused bool
}

// ScrubbedHeaders are the headers whose values are always scrubbed: the providers' API keys and credentials.
var ScrubbedHeaders = []string{
	"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie", "Set-Cookie",
	"Openai-Organization", "Openai-Project", "Anthropic-Organization-Id", "X-Goog-User-Project",
}

// droppedHeaders vary from one run to the next, or are the transport's business; they are not written.
var droppedHeaders = []string{
	"User-Agent", "Content-Length", "Accept-Encoding", "Date", "Idempotency-Key", "X-Request-Id", "Request-Id",
	"X-Goog-Api-Client", "Connection", "Keep-Alive", "Transfer-Encoding", "Openai-Processing-Ms", "Cf-Ray",
	"X-Envoy-Upstream-Service-Time", "Alt-Svc", "Server-Timing", "Traceparent", "Tracestate",
}

// scrubbedQuery are query parameters that carry keys.
var scrubbedQuery = []string{"key", "api_key", "api-key", "access_token"}

// Scrubbed replaces a scrubbed header's value in the file.
const Scrubbed = "[scrubbed]"

// A Recorder is an [http.RoundTripper] that records a test's exchanges with its model into a cassette file, or
// replays them from it. Give it to the provider's SDK as its HTTP client's transport.
type Recorder struct {
	tb     testing.TB
	path   string
	mode   Mode
	opts   Options
	scrub  map[string]bool
	redact map[string]bool

	mu   sync.Mutex
	tape *Cassette
	used []bool
	err  error // the first miss, for Err

	// file and line are where the test called New (or the helper that did), where a failure is reported when no
	// line of a test file is on the stack.
	file string
	line int
}

// New returns a recorder of the cassette at path for the test tb. Replaying, it reads the cassette now and
// fails the test when it is missing or malformed; when the test ends, it fails it if an exchange went unused
// (see [Options.AllowUnused]). Recording, it writes the cassette when the test ends (creating its directory).
// opts may be nil.
func New(tb testing.TB, path string, opts *Options) *Recorder {
	tb.Helper()
	r := &Recorder{tb: tb, path: path, scrub: map[string]bool{}, redact: map[string]bool{}}
	_, r.file, r.line, _ = runtime.Caller(1)
	if opts != nil {
		r.opts = *opts
	}
	r.mode = r.opts.Mode
	if r.mode == FromEnv {
		r.mode = Replay
		if Recording() {
			r.mode = Record
		}
	}
	for _, h := range append(append([]string(nil), ScrubbedHeaders...), r.opts.Scrub...) {
		r.scrub[http.CanonicalHeaderKey(h)] = true
	}
	for _, f := range r.opts.Redact {
		r.redact[f] = true
	}
	if r.mode == Record {
		r.tape = &Cassette{}
		tb.Cleanup(r.save)
		return r
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("cassette %s: %v (record it with %s=1 go test -run '%s')", path, err, EnvRecord, tb.Name())
	}
	r.tape, err = Parse(data)
	if err != nil {
		tb.Fatalf("cassette %s: %v", path, err)
	}
	r.used = make([]bool, len(r.tape.Exchanges))
	tb.Cleanup(r.checkUsed)
	return r
}

// Client returns an HTTP client whose transport is r.
func (r *Recorder) Client() *http.Client { return &http.Client{Transport: r} }

// Mode returns Record or Replay.
func (r *Recorder) Mode() Mode { return r.mode }

// Err returns the first request that matched no recorded exchange (a [*MissError]), or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// RoundTrip records or replays one exchange.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("cassette: reading the request: %w", err)
		}
	}
	rec := r.request(req, body)
	if r.mode == Record {
		return r.record(req, body, rec)
	}
	return r.replay(req, rec)
}

// request is what the file keeps of req: its path and scrubbed query, kept headers and redacted body.
func (r *Recorder) request(req *http.Request, body []byte) Request {
	u := *req.URL
	q := u.Query()
	for _, k := range scrubbedQuery {
		if q.Has(k) {
			q.Set(k, Scrubbed)
		}
	}
	u.RawQuery = q.Encode()
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	return Request{Method: req.Method, URL: target, Header: r.headers(req.Header), Body: redactBody(body, r.redact)}
}

func (r *Recorder) headers(h http.Header) http.Header {
	out := http.Header{}
	for k, vs := range h {
		k = http.CanonicalHeaderKey(k)
		if dropped(k) {
			continue
		}
		for _, v := range vs {
			if r.scrub[k] {
				v = Scrubbed
			}
			out.Add(k, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func dropped(k string) bool {
	for _, d := range droppedHeaders {
		if d == k {
			return true
		}
	}
	return strings.HasPrefix(k, "X-Stainless-") || strings.HasPrefix(k, "X-Ratelimit-") ||
		strings.HasPrefix(k, "Anthropic-Ratelimit-")
}

func (r *Recorder) record(req *http.Request, body []byte, rec Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	t := r.opts.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	resp, err := t.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	// The whole answer is read before the caller sees it, so a recorded stream arrives at once: recording is a
	// step a person takes once, replay is what runs every time.
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("cassette: reading the response: %w", err)
	}
	h := r.headers(resp.Header)
	if h != nil {
		h.Del("Content-Encoding") // the transport has decoded the body, or the body is kept in base64 as it came
	}
	r.mu.Lock()
	r.tape.Exchanges = append(r.tape.Exchanges, Exchange{
		Request:  rec,
		Response: Response{Status: resp.StatusCode, Header: h, Body: redactBody(data, r.redact)},
	})
	r.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	resp.Header.Del("Content-Length")
	return resp, nil
}

func (r *Recorder) save() {
	r.mu.Lock()
	data := Format(r.tape)
	r.mu.Unlock()
	if r.tb.Failed() {
		r.tb.Logf("cassette %s: not written, the test failed", r.path)
		return
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o755); err != nil {
		r.tb.Errorf("cassette: %v", err)
		return
	}
	if err := os.WriteFile(r.path, data, 0o644); err != nil {
		r.tb.Errorf("cassette: %v", err)
	}
}

// MissError is a request that matched no unused recorded exchange: the agent asked its model something it did
// not ask when the cassette was recorded. Nearest is the exchange it was compared with (the next unused one),
// and Differences what differs from it.
type MissError struct {
	Cassette    string
	Request     Request
	Nearest     int // 1-based; 0 when every exchange was used
	Differences []Difference
}

func (e *MissError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s: %s %s matches no recorded exchange", e.Cassette, e.Request.Method, e.Request.URL)
	if e.Nearest == 0 {
		b.WriteString("; every recorded exchange was used")
	} else {
		fmt.Fprintf(&b, "; against exchange %d:", e.Nearest)
		for _, d := range e.Differences {
			b.WriteString("\n\t")
			b.WriteString(d.String())
		}
	}
	fmt.Fprintf(&b, "\n(record it again with %s=1 when the change is intended)", EnvRecord)
	return b.String()
}

// ErrMiss is what every [*MissError] matches with errors.Is.
var ErrMiss = errors.New("cassette: no recorded exchange matches the request")

// Is makes errors.Is(err, ErrMiss) hold.
func (e *MissError) Is(target error) bool { return target == ErrMiss }

func (r *Recorder) replay(req *http.Request, got Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	nearest := -1
	var diffs []Difference
	for i, ex := range r.tape.Exchanges {
		if r.used[i] {
			continue
		}
		d := compare(ex.Request, got)
		if len(d) == 0 {
			r.used[i] = true
			return response(req, ex.Response), nil
		}
		if nearest < 0 {
			nearest, diffs = i, d
		}
	}
	miss := &MissError{Cassette: r.path, Request: got, Nearest: nearest + 1, Differences: diffs}
	if r.err == nil {
		r.err = miss
	}
	r.fail(miss.Error())
	return nil, miss
}

// fail fails the test with msg, reported at the test's own line rather than this package's: the outermost line of
// a test file on the stack (the test's call that led to the request, when the request runs on the test's
// goroutine, as if the test's helpers had called t.Helper), or else where the test called New. t.Helper cannot
// do this: the frames between the test and a request (the agent's, the provider SDK's, net/http's) are not
// helpers.
func (r *Recorder) fail(msg string) {
	file, line := r.file, r.line
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.File, "_test.go") {
			file, line = f.File, f.Line
		}
		if !more {
			break
		}
	}
	r.failAt(file, line, msg)
}

// failAt fails the test with msg, reported at file and line: on a *testing.T, B or F through its Output, which adds
// no line of its own; on any other testing.TB (a test's own wrapper) through its Errorf, with the line first.
func (r *Recorder) failAt(file string, line int, msg string) {
	at := fmt.Sprintf("%s:%d: ", filepath.Base(file), line)
	switch r.tb.(type) {
	case *testing.T, *testing.B, *testing.F:
		fmt.Fprintf(r.tb.Output(), "%s%s\n", at, msg)
		r.tb.Fail()
	default:
		r.tb.Errorf("%s%s", at, msg)
	}
}

// compare lists what differs between a recorded request and one made now: method, path and query, and the body
// (as JSON values when both are JSON, so that key order and spacing do not count). Headers are not compared.
func compare(rec, got Request) []Difference {
	var out []Difference
	if rec.Method != got.Method {
		out = append(out, Difference{Field: "method", Recorded: rec.Method, Got: got.Method})
	}
	if !sameURL(rec.URL, got.URL) {
		out = append(out, Difference{Field: "url", Recorded: rec.URL, Got: got.URL})
	}
	a, okA := decode(rec.Body)
	b, okB := decode(got.Body)
	switch {
	case okA && okB:
		out = diffJSON("body", a, b, out)
	case !bytes.Equal(bytes.TrimSpace(rec.Body), bytes.TrimSpace(got.Body)):
		out = append(out, Difference{Field: "body", Recorded: clip(string(rec.Body)), Got: clip(string(got.Body))})
	}
	return out
}

// sameURL compares two paths with their queries, the query's order aside.
func sameURL(a, b string) bool {
	if a == b {
		return true
	}
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil || ua.EscapedPath() != ub.EscapedPath() {
		return false
	}
	qa, qb := ua.Query(), ub.Query()
	if len(qa) != len(qb) {
		return false
	}
	for k, va := range qa {
		vb := qb[k]
		sort.Strings(va)
		sort.Strings(vb)
		if strings.Join(va, "\x00") != strings.Join(vb, "\x00") {
			return false
		}
	}
	return true
}

func response(req *http.Request, rec Response) *http.Response {
	h := rec.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rec.Status, http.StatusText(rec.Status)),
		StatusCode:    rec.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(rec.Body)),
		ContentLength: int64(len(rec.Body)),
		Request:       req,
	}
}

// failAtNew fails the test with msg, reported where the test called New: the test's own line for what the
// cassette finds when the test ends.
func (r *Recorder) failAtNew(msg string) { r.failAt(r.file, r.line, msg) }

func (r *Recorder) checkUsed() {
	if r.opts.AllowUnused || r.tb.Failed() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, u := range r.used {
		if !u {
			ex := r.tape.Exchanges[i].Request
			r.failAtNew(fmt.Sprintf("cassette %s: exchange %d (%s %s) was recorded but never asked for", r.path, i+1, ex.Method, ex.URL))
		}
	}
}
