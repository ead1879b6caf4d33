package providertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	anoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	oaoption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// A turn is what the model says in one answer of a scripted exchange: its reasoning and the signature the
// provider wants back with it, its text, its tool calls.
type turn struct {
	thought, signature string
	text               string
	calls              []call
	// input is the usage's count of input tokens; the scripted server sets it to a token per four bytes of the
	// request, as the providers count roughly, so that the host's estimates calibrate as they do on the real API.
	input int
}

// inputTokens returns the turn's input count, 120 when none was set.
func (tu turn) inputTokens() int {
	if tu.input == 0 {
		return 120
	}
	return tu.input
}

type call struct{ id, name, args string }

// A wire is one provider as the agent-level suite drives it: its real client over its real SDK, against a local
// server that renders the script in the provider's own wire format, whole or as a server-sent event stream as the
// request asks.
type wire struct {
	name string
	// reasoning says the provider hands reasoning to the conversation and wants it back; ids says it keeps the
	// model's call ids on the wire (Gemini's calls have none).
	reasoning, ids bool
	// serve starts the provider's server on the script and returns the client and the bodies of the requests
	// the server received so far.
	serve func(t *testing.T, script []turn) (chat.Client, func() []string)
}

// wires are the providers the suite runs over.
func wires() []wire {
	return []wire{
		{name: "openai", ids: true, serve: serveChatCompletions},
		{name: "openai-responses", reasoning: true, ids: true, serve: serveResponses},
		{name: "anthropic", reasoning: true, ids: true, serve: serveMessages},
		{name: "gemini", reasoning: true, serve: serveGemini},
	}
}

// serveChatCompletions serves the script through openaitest, which renders Chat Completions' wire format (the
// API has no reasoning to give back: the turns' thoughts are left out).
func serveChatCompletions(t *testing.T, script []turn) (chat.Client, func() []string) {
	replies := make([]openaitest.Reply, 0, len(script)+1)
	for _, tu := range script {
		r := openaitest.Reply{Text: tu.text}
		for _, c := range tu.calls {
			r.ToolCalls = append(r.ToolCalls, openaitest.ToolCall{ID: c.id, Name: c.name, Arguments: c.args})
		}
		replies = append(replies, r)
	}
	replies = append(replies, openaitest.Error(500, "server_error", "", "the script has no more answers"))
	srv := openaitest.NewServer(replies...)
	t.Cleanup(srv.Close)
	c := openai.New(oaoption.WithBaseURL(srv.URL), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0)).WithModel("gpt-test")
	return c, func() []string {
		var out []string
		for _, r := range srv.Requests() {
			out = append(out, string(r.Body))
		}
		return out
	}
}

// scripted is a local server answering the n-th request with render(n-th turn), and 500 past the script.
type scripted struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newScripted(t *testing.T, script []turn, render func(w io.Writer, n int, tu turn, stream bool), stream func(r *http.Request, body []byte) bool) *scripted {
	s := &scripted{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		if n >= len(script) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"api_error","code":500,"message":"the script has no more answers","status":"INTERNAL"}}`)
			return
		}
		st := stream(r, body)
		if st {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		tu := script[n]
		tu.input = int(providerkit.EstimateTokens(len(body)))
		render(w, n, tu, st)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scripted) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// streamFlag reads "stream": true from a JSON request body.
func streamFlag(_ *http.Request, body []byte) bool {
	var b struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &b)
	return b.Stream
}

// q quotes a string as JSON.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// chunks splits s into pieces of at most n bytes (at least two pieces for a text of two bytes or more).
func chunks(s string, n int) []string {
	if len(s) > 1 && len(s) <= n {
		n = (len(s) + 1) / 2
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func event(w io.Writer, name, data string) {
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// renderMessages writes a turn in the Messages API's format: a message whose content is a thinking block,
// a text block and tool_use blocks, or its event stream (message_start, content blocks with their deltas,
// message_delta, message_stop).
func renderMessages(w io.Writer, n int, tu turn, stream bool) {
	stop := "end_turn"
	if len(tu.calls) > 0 {
		stop = "tool_use"
	}
	usage := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`, tu.inputTokens())
	if !stream {
		var content []string
		if tu.thought != "" {
			content = append(content, `{"type":"thinking","thinking":`+q(tu.thought)+`,"signature":`+q(tu.signature)+`}`)
		}
		if tu.text != "" {
			content = append(content, `{"type":"text","text":`+q(tu.text)+`}`)
		}
		for _, c := range tu.calls {
			content = append(content, `{"type":"tool_use","id":`+q(c.id)+`,"name":`+q(c.name)+`,"input":`+c.args+`}`)
		}
		fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":%s}`,
			n, strings.Join(content, ","), stop, usage)
		return
	}
	event(w, "message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, n, tu.inputTokens()))
	i := 0
	block := func(start string, deltas ...string) {
		event(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, start))
		for _, d := range deltas {
			event(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, d))
		}
		event(w, "content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
		i++
	}
	if tu.thought != "" {
		var ds []string
		for _, p := range chunks(tu.thought, 12) {
			ds = append(ds, `{"type":"thinking_delta","thinking":`+q(p)+`}`)
		}
		block(`{"type":"thinking","thinking":"","signature":""}`, append(ds, `{"type":"signature_delta","signature":`+q(tu.signature)+`}`)...)
	}
	if tu.text != "" {
		var ds []string
		for _, p := range chunks(tu.text, 8) {
			ds = append(ds, `{"type":"text_delta","text":`+q(p)+`}`)
		}
		block(`{"type":"text","text":""}`, ds...)
	}
	for _, c := range tu.calls {
		var ds []string
		for _, p := range chunks(c.args, 6) {
			ds = append(ds, `{"type":"input_json_delta","partial_json":`+q(p)+`}`)
		}
		block(`{"type":"tool_use","id":`+q(c.id)+`,"name":`+q(c.name)+`,"input":{}}`, ds...)
	}
	event(w, "message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":40}}`)
	event(w, "message_stop", `{"type":"message_stop"}`)
}

func serveMessages(t *testing.T, script []turn) (chat.Client, func() []string) {
	s := newScripted(t, script, renderMessages, streamFlag)
	c := anthropic.New(anoption.WithoutEnvironmentDefaults(), anoption.WithBaseURL(s.URL), anoption.WithAPIKey("sk-ant-test")).WithModel("claude-test")
	return c, s.requests
}

// renderGemini writes a turn as a generateContent answer: a candidate whose parts are a thought, the text and
// the function calls, the thought signature on the first call (or on the text when there is none); streamed, one
// answer per part and the text in pieces, the finish reason and usage on the last.
func renderGemini(w io.Writer, n int, tu turn, stream bool) {
	var parts []string
	signed := func(part string, first bool) string {
		if first && tu.signature != "" {
			return strings.TrimSuffix(part, "}") + `,"thoughtSignature":` + q(tu.signature) + `}`
		}
		return part
	}
	if tu.thought != "" {
		parts = append(parts, `{"text":`+q(tu.thought)+`,"thought":true}`)
	}
	var textParts []string
	if stream {
		for _, p := range chunks(tu.text, 8) {
			textParts = append(textParts, `{"text":`+q(p)+`}`)
		}
	} else if tu.text != "" {
		textParts = []string{`{"text":` + q(tu.text) + `}`}
	}
	if tu.text == "" {
		textParts = nil
	}
	for i, p := range textParts {
		parts = append(parts, signed(p, i == 0 && len(tu.calls) == 0))
	}
	for i, c := range tu.calls {
		parts = append(parts, signed(`{"functionCall":{"name":`+q(c.name)+`,"args":`+c.args+`}}`, i == 0))
	}
	candidate := func(ps []string, last bool) string {
		s := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(ps, ",") + `]}`
		if last {
			s += `,"finishReason":"STOP"`
		}
		s += `,"index":0}],"modelVersion":"gemini-test","responseId":"r` + fmt.Sprint(n) + `"`
		if last {
			s += fmt.Sprintf(`,"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":30,"thoughtsTokenCount":10,"totalTokenCount":%d}`, tu.inputTokens(), tu.inputTokens()+40)
		}
		return s + "}"
	}
	if !stream {
		_, _ = io.WriteString(w, candidate(parts, true))
		return
	}
	for i, p := range parts {
		event(w, "", candidate([]string{p}, i == len(parts)-1))
	}
}

func serveGemini(t *testing.T, script []turn) (chat.Client, func() []string) {
	s := newScripted(t, script, renderGemini, func(r *http.Request, _ []byte) bool {
		return strings.Contains(r.URL.Path, "streamGenerateContent")
	})
	c, err := gemini.New(context.Background(), &genai.ClientConfig{APIKey: "AIza-test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithModel("gemini-test"), s.requests
}

// renderResponses writes a turn as an OpenAI Responses API answer: a response whose output items are a
// reasoning item (its summary and encrypted content), a message and function calls, or its event stream
// (response.created, each item added, its deltas and done, response.completed).
func renderResponses(w io.Writer, n int, tu turn, stream bool) {
	var items []string
	if tu.thought != "" {
		items = append(items, fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":%s}],"encrypted_content":%s}`, n, q(tu.thought), q(tu.signature)))
	}
	if tu.text != "" {
		items = append(items, fmt.Sprintf(`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, n, q(tu.text)))
	}
	for i, c := range tu.calls {
		items = append(items, fmt.Sprintf(`{"type":"function_call","id":"fc_%d_%d","call_id":%s,"name":%s,"arguments":%s,"status":"completed"}`, n, i, q(c.id), q(c.name), q(c.args)))
	}
	response := func(status string, output []string) string {
		return fmt.Sprintf(`{"id":"resp_%d","object":"response","created_at":1767225600,"status":%q,"model":"gpt-test","output":[%s],`+
			`"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":10},"total_tokens":%d},`+
			`"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"parallel_tool_calls":true,"temperature":1,"top_p":1,"tool_choice":"auto","tools":[]}`,
			n, status, strings.Join(output, ","), tu.inputTokens(), tu.inputTokens()+40)
	}
	if !stream {
		_, _ = io.WriteString(w, response("completed", items))
		return
	}
	seq := 0
	send := func(typ, fields string) {
		event(w, typ, fmt.Sprintf(`{"type":%q,%s,"sequence_number":%d}`, typ, fields, seq))
		seq++
	}
	send("response.created", `"response":`+response("in_progress", nil))
	out := 0
	if tu.thought != "" {
		id := fmt.Sprintf("rs_%d", n)
		send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"type":"reasoning","id":%q,"summary":[]}`, out, id))
		send("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, id, out))
		for _, p := range chunks(tu.thought, 12) {
			send("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"delta":%s`, id, out, q(p)))
		}
		send("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, out, items[out]))
		out++
	}
	if tu.text != "" {
		id := fmt.Sprintf("msg_%d", n)
		send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"type":"message","id":%q,"role":"assistant","status":"in_progress","content":[]}`, out, id))
		for _, p := range chunks(tu.text, 8) {
			send("response.output_text.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"delta":%s,"logprobs":[]`, id, out, q(p)))
		}
		send("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, out, items[out]))
		out++
	}
	for i, c := range tu.calls {
		id := fmt.Sprintf("fc_%d_%d", n, i)
		send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"type":"function_call","id":%q,"call_id":%s,"name":%s,"arguments":"","status":"in_progress"}`, out, id, q(c.id), q(c.name)))
		for _, p := range chunks(c.args, 6) {
			send("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":%s`, id, out, q(p)))
		}
		send("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, out, items[out]))
		out++
	}
	send("response.completed", `"response":`+response("completed", items))
}

func serveResponses(t *testing.T, script []turn) (chat.Client, func() []string) {
	s := newScripted(t, script, renderResponses, streamFlag)
	c := openai.NewResponses(oaoption.WithBaseURL(s.URL), oaoption.WithAPIKey("sk-test")).WithModel("gpt-test")
	return c, s.requests
}
