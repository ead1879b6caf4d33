// Package openaitest serves OpenAI's Chat Completions wire format from a local HTTP server, so that tests and
// benchmarks can drive the real SDK (through package openai, or directly) without a network or an API key.
//
// A [Server] answers each request with the next [Reply] of its script: a reply describes what the model says
// (text, tool calls, usage) and the server renders it as a JSON completion or, when the request asks to stream,
// as server-sent events — text split into deltas, each tool call's arguments split over several chunks and the
// calls interleaved, usage in a last chunk when the request asks for it, then "data: [DONE]". A reply can also
// be an error ([Error]), raw chunks, a stream cut halfway or a slow one. The server records every request.
//
//	srv := openaitest.NewServer(openaitest.Reply{Text: "Hello!"})
//	defer srv.Close()
//	c := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

// A Reply is the server's answer to one request.
type Reply struct {
	// Text is what the model says.
	Text string
	// ToolCalls are the calls the model asks for, in order.
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are calls and "stop" otherwise.
	FinishReason string
	// Usage defaults to an estimate: a token per four bytes of request and of answer.
	Usage *Usage
	// Model defaults to the model the request named.
	Model string
	// ID defaults to "chatcmpl-test-" and the request's number.
	ID string

	// Status, when not 0 or 200, answers with that status, the Header and the Body (see [Error]).
	Status int
	// Header is added to the answer's headers.
	Header http.Header
	// Body, when set, is the answer's body, sent as is.
	Body string

	// Chunks, when set, replaces the rendered stream: each is the data of one event, sent as is (include
	// "[DONE]" to end it properly).
	Chunks []string
	// CutAfter, when > 0, breaks the connection after that many stream events.
	CutAfter int
	// Delay is waited before each stream event but the first; the wait ends when the client goes away.
	Delay time.Duration
	// TextDelta is how many bytes of text each delta carries (default 8).
	TextDelta int
}

// ToolCall is one call the model asks for.
type ToolCall struct {
	ID, Name string
	// Arguments is the JSON the model sends, as text.
	Arguments string
}

// Usage is the token count the server reports.
type Usage struct{ PromptTokens, CompletionTokens int64 }

// Error returns a reply with the API's error shape: {"error":{"message":...,"type":...,"param":null,"code":...}}.
func Error(status int, typ, code, message string) Reply {
	body := fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":null,"code":%s}}`, q(message), q(typ), nullable(code))
	return Reply{Status: status, Body: body}
}

// RateLimited returns a 429 reply asking the client to wait retryAfter (whole seconds, in Retry-After).
func RateLimited(retryAfter time.Duration) Reply {
	r := Error(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests per min. Please try again later.")
	r.Header = http.Header{"Retry-After": {strconv.Itoa(int(retryAfter / time.Second))}}
	return r
}

// A Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	// Body is the request's JSON body.
	Body []byte
}

// Decode returns the body decoded into a generic JSON value, for assertions.
func (r Request) Decode() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Server is a local Chat Completions endpoint. Point a client's base URL at URL.
type Server struct {
	// URL is the base URL to give clients.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	script   []Reply
	requests []Request
}

// NewServer starts a server on 127.0.0.1 answering with the replies in order. When the script runs out, the last
// reply answers every further request (so that a benchmark can send as many as it likes); an empty script
// answers "OK".
func NewServer(script ...Reply) *Server {
	s := &Server{script: script}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("openaitest: listen on 127.0.0.1: %v", err))
	}
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close shuts the server down, breaking connections still open.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	reply := Reply{Text: "OK"}
	switch {
	case n < len(s.script):
		reply = s.script[n]
	case len(s.script) > 0:
		reply = s.script[len(s.script)-1]
	}
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, Error(http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path))
		return
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, Error(http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request."))
		return
	}
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	if reply.Model == "" {
		reply.Model = req.Model
	}
	if reply.ID == "" {
		reply.ID = fmt.Sprintf("chatcmpl-test-%d", n+1)
	}
	if reply.Usage == nil {
		reply.Usage = &Usage{PromptTokens: providerkit.EstimateTokens(len(body)), CompletionTokens: providerkit.EstimateTokens(len(reply.Text) + argsLen(reply.ToolCalls))}
	}
	if reply.FinishReason == "" {
		reply.FinishReason = "stop"
		if len(reply.ToolCalls) > 0 {
			reply.FinishReason = "tool_calls"
		}
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		if reply.Body != "" {
			io.WriteString(w, reply.Body)
			return
		}
		io.WriteString(w, completion(reply))
		return
	}
	events := reply.Chunks
	if events == nil {
		events = chunks(reply, req.StreamOptions.IncludeUsage)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, data := range events {
		if reply.CutAfter > 0 && i == reply.CutAfter {
			// Aborting the handler closes the connection without ending the chunked body.
			panic(http.ErrAbortHandler)
		}
		if reply.Delay > 0 && i > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func writeError(w http.ResponseWriter, reply Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.Status)
	io.WriteString(w, reply.Body)
}

// The renderers below write JSON by hand, field by field, in the order the API sends its fields, so that what
// a client reads is the API's bytes and not merely an equivalent document.

// completion renders a whole chat.completion object.
func completion(r Reply) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"id":%s,"object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null`,
		q(r.ID), created, q(r.Model), nullable(r.Text))
	if len(r.ToolCalls) > 0 {
		b.WriteString(`,"tool_calls":[`)
		for i, c := range r.ToolCalls {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}`, q(c.ID), q(c.Name), q(c.Arguments))
		}
		b.WriteByte(']')
	}
	fmt.Fprintf(&b, `,"annotations":[]},"logprobs":null,"finish_reason":%s}],"usage":%s,"service_tier":"default","system_fingerprint":"fp_test"}`,
		q(r.FinishReason), usageJSON(r.Usage))
	return b.String()
}

// chunks renders a reply as the data of its stream events, [DONE] included.
func chunks(r Reply, includeUsage bool) []string {
	head := fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"service_tier":"default","system_fingerprint":"fp_test","choices":`,
		q(r.ID), created, q(r.Model))
	tail := "}"
	if includeUsage {
		tail = `,"usage":null}`
	}
	chunk := func(delta, finish string) string {
		return head + `[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]` + tail
	}
	out := []string{chunk(`{"role":"assistant","content":"","refusal":null}`, "null")}
	step := r.TextDelta
	if step <= 0 {
		step = 8
	}
	for text := r.Text; text != ""; {
		n := min(step, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, chunk(`{"content":`+q(text[:n])+`}`, "null"))
		text = text[n:]
	}
	// Each call opens with its id and name, then its arguments arrive in three pieces, the calls taking turns,
	// as the API does for parallel calls.
	for i, c := range r.ToolCalls {
		out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`,
			i, q(c.ID), q(c.Name)), "null"))
	}
	pieces := make([][]string, len(r.ToolCalls))
	for i, c := range r.ToolCalls {
		pieces[i] = split(c.Arguments, 3)
	}
	for p := range 3 {
		for i := range r.ToolCalls {
			if pieces[i][p] == "" {
				continue
			}
			out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, q(pieces[i][p])), "null"))
		}
	}
	out = append(out, chunk(`{}`, q(r.FinishReason)))
	if includeUsage {
		out = append(out, head+`[],"usage":`+usageJSON(r.Usage)+`}`)
	}
	return append(out, "[DONE]")
}

// created is a fixed timestamp, so that rendered replies are reproducible.
const created = 1764460800

func usageJSON(u *Usage) string {
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,`+
		`"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
		u.PromptTokens, u.CompletionTokens, u.PromptTokens+u.CompletionTokens)
}

// q returns s as a JSON string.
func q(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// split cuts s into n pieces of about the same size, never inside a UTF-8 sequence.
func split(s string, n int) []string {
	out := make([]string, n)
	size := (len(s) + n - 1) / n
	lo := 0
	for i := range n {
		hi := min(lo+size, len(s))
		for hi < len(s) && !utf8.RuneStart(s[hi]) {
			hi++
		}
		out[i] = s[lo:hi]
		lo = hi
	}
	return out
}

func argsLen(calls []ToolCall) int {
	n := 0
	for _, c := range calls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}

// nullable returns s as a JSON string, or null when it is empty.
func nullable(s string) string {
	if s == "" {
		return "null"
	}
	return q(s)
}
