package agenta2a

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// ErrRemoteProtocol is wrapped by the errors of a remote agent that answered outside the protocol: a body that
// is not JSON-RPC, an answer to another request, a body or an event over the size bound, a stream that went
// silent.
var ErrRemoteProtocol = errors.New("the remote agent broke the protocol")

// remoteTransport is the http.RoundTripper of every request to a remote agent: it signs the request with the
// application's hook, retries what failed before the remote could act on it, and holds the remote's answer to
// the protocol's shape and to bounds of size and time, so that garbage from the remote is an error, never a hang.
type remoteTransport struct {
	base      http.RoundTripper
	authorize func(*http.Request) error
	retries   int
	maxBytes  int64
	idle      time.Duration
	backoff   time.Duration
}

// RoundTrip sends r, trying again after a transient failure.
func (t *remoteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, t.maxBytes+1))
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > t.maxBytes {
			return nil, fmt.Errorf("the request to the remote agent is over %d bytes", t.maxBytes)
		}
		body = b
	}
	wantID := requestID(body)
	wait := t.backoff
	for attempt := 0; ; attempt++ {
		resp, err := t.once(r, body, wantID)
		if attempt >= t.retries || !transient(resp, err) || r.Context().Err() != nil {
			return resp, err
		}
		if resp != nil {
			_ = resp.Body.Close()
		}
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// once sends one attempt of r with body and bounds its answer.
func (t *remoteTransport) once(r *http.Request, body []byte, wantID string) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	req := r.Clone(ctx)
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	if t.authorize != nil {
		if err := t.authorize(req); err != nil {
			cancel(nil)
			return nil, fmt.Errorf("authorizing the request to the remote agent: %w", err)
		}
	}
	streaming := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	var timer *time.Timer
	if streaming && t.idle > 0 {
		timer = time.AfterFunc(t.idle, func() {
			cancel(fmt.Errorf("%w: nothing came from the stream for %s", ErrRemoteProtocol, t.idle))
		})
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		if timer != nil {
			timer.Stop()
		}
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		cancel(nil)
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		// The transport above reads the status only; the body is the remote's to keep.
		if timer != nil {
			timer.Stop()
		}
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(""))
		cancel(nil)
		return resp, nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &eventBody{src: bufio.NewReaderSize(resp.Body, 4096), closer: resp.Body, ctx: ctx, cancel: cancel,
			timer: timer, idle: t.idle, max: t.maxBytes, wantID: wantID}
		return resp, nil
	}
	if timer != nil {
		timer.Stop()
	}
	defer cancel(nil)
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBytes+1))
	_ = resp.Body.Close()
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading the remote agent's answer: %w", err)
	case int64(len(data)) > t.maxBytes:
		return nil, fmt.Errorf("%w: its answer is over %d bytes", ErrRemoteProtocol, t.maxBytes)
	}
	if r.Method == http.MethodPost {
		if err := checkEnvelope(data, wantID); err != nil {
			return nil, err
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// transient reports a failure worth another attempt: the remote was not reached, or said it could not take the
// request now. A request the remote may have acted on (a timeout mid-answer) is not sent again.
func transient(resp *http.Response, err error) bool {
	if err != nil {
		var op *net.OpError
		return errors.As(err, &op) && op.Op == "dial"
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// requestID returns the id of a JSON-RPC request body, or "" for none.
func requestID(body []byte) string {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	return string(env.ID)
}

// checkEnvelope checks that data is a JSON-RPC answer to the request whose id is wantID.
func checkEnvelope(data []byte, wantID string) error {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%w: its answer is not JSON-RPC: %v", ErrRemoteProtocol, err)
	}
	switch {
	case env.JSONRPC != "2.0":
		return fmt.Errorf("%w: its answer is not JSON-RPC 2.0", ErrRemoteProtocol)
	case env.Result == nil && env.Error == nil:
		return fmt.Errorf("%w: its answer has neither a result nor an error", ErrRemoteProtocol)
	case wantID != "" && string(env.ID) != wantID && !(env.Error != nil && string(env.ID) == "null"):
		return fmt.Errorf("%w: it answered request %s, not %s", ErrRemoteProtocol, env.ID, wantID)
	}
	return nil
}

// eventBody passes a Server-Sent Events stream through, line by line, checking each data line's JSON-RPC
// envelope, bounding a line's length and the silence between lines.
type eventBody struct {
	src    *bufio.Reader
	closer io.Closer
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
	max    int64
	wantID string
	buf    []byte // the rest of the line read last
	err    error
}

func (b *eventBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.line()
		if err != nil {
			if cause := context.Cause(b.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				err = cause
			}
			b.err = err
		}
		b.buf = line
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// line reads the stream's next line, whole and checked.
func (b *eventBody) line() ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := b.src.ReadLine()
		if err != nil {
			return nil, err
		}
		if b.timer != nil {
			b.timer.Reset(b.idle)
		}
		line = append(line, chunk...)
		if int64(len(line)) > b.max {
			return nil, fmt.Errorf("%w: an event of its stream is over %d bytes", ErrRemoteProtocol, b.max)
		}
		if !isPrefix {
			break
		}
	}
	if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		if err := checkEnvelope(bytes.TrimSpace(data), b.wantID); err != nil {
			return nil, err
		}
	}
	return append(line, '\n'), nil
}

func (b *eventBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.closer.Close()
	b.cancel(nil)
	return err
}
