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
	"sync"
	"time"
	"unicode/utf8"
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
	// Delay is waited before each stream event; the wait ends when the client goes away.
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
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nullable(code)}})
	return Reply{Status: status, Body: string(body)}
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
		reply.Usage = &Usage{PromptTokens: estimate(len(body)), CompletionTokens: estimate(len(reply.Text) + argsLen(reply.ToolCalls))}
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
		if reply.Delay > 0 {
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

// completion renders a whole chat.completion object.
func completion(r Reply) string {
	msg := map[string]any{"role": "assistant", "content": nullable(r.Text), "refusal": nil, "annotations": []any{}}
	if len(r.ToolCalls) > 0 {
		calls := make([]any, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["tool_calls"] = calls
	}
	return mustJSON(map[string]any{
		"id": r.ID, "object": "chat.completion", "created": created, "model": r.Model,
		"choices":      []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": r.FinishReason}},
		"usage":        usageJSON(r.Usage),
		"service_tier": "default", "system_fingerprint": "fp_test",
	})
}

// chunks renders a reply as the data of its stream events, [DONE] included.
func chunks(r Reply, includeUsage bool) []string {
	chunk := func(delta map[string]any, finish any) string {
		c := map[string]any{
			"id": r.ID, "object": "chat.completion.chunk", "created": created, "model": r.Model,
			"service_tier": "default", "system_fingerprint": "fp_test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		return mustJSON(c)
	}
	out := []string{chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}
	step := r.TextDelta
	if step <= 0 {
		step = 8
	}
	for text := r.Text; text != ""; {
		n := min(step, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, chunk(map[string]any{"content": text[:n]}, nil))
		text = text[n:]
	}
	// Each call opens with its id and name, then its arguments arrive in three pieces, the calls taking turns,
	// as the API does for parallel calls.
	for i, c := range r.ToolCalls {
		out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
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
			out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": pieces[i][p]}}}}, nil))
		}
	}
	out = append(out, chunk(map[string]any{}, r.FinishReason))
	if includeUsage {
		out = append(out, mustJSON(map[string]any{
			"id": r.ID, "object": "chat.completion.chunk", "created": created, "model": r.Model,
			"service_tier": "default", "system_fingerprint": "fp_test",
			"choices": []any{}, "usage": usageJSON(r.Usage),
		}))
	}
	return append(out, "[DONE]")
}

// created is a fixed timestamp, so that rendered replies are reproducible.
const created = 1764460800

func usageJSON(u *Usage) map[string]any {
	return map[string]any{
		"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
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

func estimate(bytes int) int64 { return int64((bytes + 3) / 4) }

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of plain values reach here
	}
	return string(b)
}
