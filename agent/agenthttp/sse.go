package agenthttp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// sse writes a Server-Sent Events stream. The headers go out with the first event, so a run refused before it
// starts still answers with a problem and its status. Each write has a deadline: a client that stops reading is
// cut off when one write waits longer than timeout, and the stream is gone. Once the client is gone, writes do
// nothing, so the run behind the stream goes on to its end without it; nothing queues up for the client.
type sse struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	header  func(http.Header) // extra response headers, such as a protocol's version header
	status  int               // of the response; zero means 200
	timeout time.Duration     // of each write
	started bool
	gone    bool
	onGone  func() // called once when a write fails, such as a watch's cancel
	stop    chan struct{}
	buf     bytes.Buffer
}

func (h *Handler) newSSE(w http.ResponseWriter, header func(http.Header)) *sse {
	return &sse{w: w, rc: http.NewResponseController(w), header: header, timeout: h.opts.WriteTimeout}
}

// begin sends the headers and starts the heartbeat; the caller holds mu.
func (s *sse) begin(heartbeat time.Duration) {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if s.header != nil {
		s.header(h)
	}
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.w.WriteHeader(s.status) // flushed with the first write
	if heartbeat > 0 {
		s.stop = make(chan struct{})
		go s.beat(heartbeat, s.stop)
	}
}

// beat sends a comment when the stream has been idle for d, so that proxies keep it open, until stop closes. It
// is given the channel rather than reading s.stop, which close sets to nil under mu.
func (s *sse) beat(d time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.write([]byte(": heartbeat\n\n"))
			s.mu.Unlock()
		}
	}
}

// write sends b and flushes, within the write deadline; the caller holds mu.
func (s *sse) write(b []byte) {
	if s.gone {
		return
	}
	if s.timeout > 0 {
		// A writer that cannot take a deadline (a test's recorder) is written without one.
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	}
	if _, err := s.w.Write(b); err != nil {
		s.cut()
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.cut()
	}
}

// cut marks the client gone after a failed write; the caller holds mu.
func (s *sse) cut() {
	s.gone = true
	if s.onGone != nil {
		f := s.onGone
		s.onGone = nil
		f()
	}
}

// event sends one event: an optional id and name, and data as JSON on one line (encoding/json escapes line
// breaks inside strings, so one data line always holds it).
func (s *sse) event(heartbeat time.Duration, id, name string, data any) {
	payload, err := json.Marshal(data)
	if err != nil {
		payload, _ = json.Marshal(map[string]string{"error": "the event could not be encoded"})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(heartbeat)
	s.buf.Reset()
	if id != "" {
		s.buf.WriteString("id: ")
		s.buf.WriteString(id)
		s.buf.WriteByte('\n')
	}
	if name != "" {
		s.buf.WriteString("event: ")
		s.buf.WriteString(name)
		s.buf.WriteByte('\n')
	}
	s.buf.WriteString("data: ")
	s.buf.Write(payload)
	s.buf.WriteString("\n\n")
	s.write(s.buf.Bytes())
}

// opened reports whether the stream's headers went out, with its first event; false for a nil stream.
func (s *sse) opened() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// raw sends a data line as it is, such as the AI SDK's "[DONE]".
func (s *sse) raw(data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.write([]byte("data: " + data + "\n\n"))
}

// close stops the heartbeat; nothing is written after it, since the response may be finished. The server's own
// last write (the end of the chunked body) gets a fresh deadline.
func (s *sse) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.gone && s.started && s.timeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	}
	s.gone = true
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

// wantsEvents reports whether the client asked for an event stream rather than JSON.
func wantsEvents(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// The events of a native run stream (see docs/http.md).
const (
	eventText            = "text"
	eventReasoning       = "reasoning"
	eventSteering        = "steering"
	eventAnswer          = "answer"
	eventToolCall        = "tool_call"
	eventToolResult      = "tool_result"
	eventApprovalRequest = "approval_request"
	eventUsage           = "usage"
	eventMode            = "mode"
	eventEnd             = "end"
	eventError           = "error"
)

// nativeSink answers a native run: as JSON at its end, or as Server-Sent Events as it happens.
type nativeSink struct {
	h      *Handler
	w      http.ResponseWriter
	r      *http.Request
	id     string
	mode   string // the mode the run started in, to report a change
	status int    // of a JSON answer
	stream *sse   // nil for JSON
	seq    int
	// collecting keeps the events of one watched update in collected, so that its id goes on the last of them.
	collecting bool
	collected  []collectedEvent
}

type collectedEvent struct {
	name string
	data any
}

// emit sends one event with an id ("" for none).
func (s *nativeSink) emit(name string, data any, id string) {
	s.stream.event(s.h.opts.Heartbeat, id, name, data)
}

// flushCollected sends the collected events, the last with id.
func (s *nativeSink) flushCollected(id string) {
	for i, ev := range s.collected {
		eid := ""
		if i == len(s.collected)-1 {
			eid = id
		}
		s.emit(ev.name, ev.data, eid)
	}
	s.collected = s.collected[:0]
}

func (h *Handler) nativeSink(w http.ResponseWriter, r *http.Request, id, mode string, status int) *nativeSink {
	s := &nativeSink{h: h, w: w, r: r, id: id, mode: mode, status: status}
	if wantsEvents(r) {
		s.stream = h.newSSE(w, nil)
		s.stream.status = status
	}
	return s
}

func (s *nativeSink) send(name string, data any) {
	if s.collecting {
		s.collected = append(s.collected, collectedEvent{name, data})
		return
	}
	s.seq++
	s.stream.event(s.h.opts.Heartbeat, strconv.Itoa(s.seq), name, data)
}

func (s *nativeSink) update(u chat.Update) {
	if s.stream == nil {
		return
	}
	if u.Steering {
		if text := steeringText(u); text != "" {
			s.send(eventSteering, map[string]string{"text": text})
		}
		return
	}
	if u.Answer != nil {
		if ev, ok := answerEventOf(u.Answer); ok {
			s.send(eventAnswer, ev)
		}
		return
	}
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.Text:
			if p.Text != "" && u.Role == chat.RoleAssistant {
				s.send(eventText, map[string]string{"delta": p.Text})
			}
		case chat.Reasoning:
			// Only the readable text: the signature and the encrypted form are the provider's, kept in the
			// stored conversation.
			if p.Text != "" && u.Role == chat.RoleAssistant {
				s.send(eventReasoning, map[string]string{"delta": p.Text})
			}
		case chat.ToolCall:
			s.send(eventToolCall, toolCallOf(p))
		case chat.ToolResult:
			s.send(eventToolResult, toolResultOf(p))
		case chat.ApprovalRequest:
			s.send(eventApprovalRequest, requestOf(p))
		case chat.UsagePart:
			s.send(eventUsage, usageOf(p.Usage))
		}
	}
}

func (s *nativeSink) end(res *agent.Result, err error) {
	if s.stream == nil {
		if err != nil {
			writeProblem(s.w, s.r, s.h.log, err)
			return
		}
		_ = writeJSON(s.w, s.status, resultOf(s.id, res))
		return
	}
	defer s.stream.close()
	if res.Mode != s.mode {
		s.send(eventMode, map[string]string{"mode": res.Mode})
	}
	if err != nil {
		s.send(eventError, problemOf(err))
		return
	}
	s.send(eventEnd, resultOf(s.id, res))
}

func (s *nativeSink) refuse(err error) { writeProblem(s.w, s.r, s.h.log, err) }

func (s *nativeSink) streams() bool { return s.stream != nil }

func (s *nativeSink) written() bool { return s.stream.opened() }

// steeringText is the text of the steering input an update shows.
func steeringText(u chat.Update) string {
	return chat.Message{Role: u.Role, Parts: u.Parts}.Text()
}

type toolCallJSON struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func toolCallOf(c chat.ToolCall) toolCallJSON {
	return toolCallJSON{ID: c.ID, Name: c.Name, Arguments: jsonOrString(c.Arguments)}
}

type toolResultJSON struct {
	CallID string          `json:"call_id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

func toolResultOf(r chat.ToolResult) toolResultJSON {
	out := toolResultJSON{CallID: r.CallID, Error: r.Error}
	if r.Error == "" {
		out.Result = jsonOrString(r.Result)
	}
	return out
}

// jsonOrString returns b when it is JSON, and b as a JSON string otherwise (a model's malformed arguments).
func jsonOrString(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

// newID returns a random id for a conversation or a message: 128 bits, hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func itoa(i int) string { return strconv.Itoa(i) }
