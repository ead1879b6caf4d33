package providertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// Provider describes a provider's client to the suite.
type Provider struct {
	// Name is the provider's name: the Provider of the [chat.Reasoning] parts and [chat.ProviderError]s its
	// client writes.
	Name string
	// New returns a client whose requests go to baseURL (the local replay server), with a default model and the
	// SDK's own retries off.
	New func(t *testing.T, baseURL string) chat.Client
	// Fixtures holds the recorded exchanges, one <case>.txtar per case (see the package documentation).
	Fixtures fs.FS
	// Live returns a client of the provider's real API, or nil when its API key is not in the environment.
	// Nil Live skips the live cases.
	Live func(t *testing.T) chat.Client
	// TemperatureField is the path of the request field [chat.Options.Temperature] sets, its objects' keys joined
	// by dots ("temperature", "generationConfig.temperature"): the extra case sets it again through
	// Options.Extra, and adds a field beside it. Empty skips the case.
	TemperatureField string
	// Refused is a file the provider's API cannot take, which the client must refuse before any request with an
	// error that is [chat.ErrInvalidRequest] (the refused_file case, which needs no fixture). Nil skips the case.
	Refused *chat.File
}

// A Case is one rule of the suite.
type Case struct {
	// Name names the case and its fixture file (Name + ".txtar").
	Name string
	// Expects says what the fixture's answer must hold and what the suite checks.
	Expects string
	run     func(t *testing.T, e *env)
	// skip says why the case does not apply to p, or "".
	skip func(p Provider) string
	// offline marks a case that sends nothing, and so has no fixture.
	offline bool
}

// The values the fixtures encode.
const (
	// Answer is the text of the plain, streamed, usage and finish cases' answers.
	Answer = "Ticket 4711 is open: the printer on floor 3 is out of toner."
	// Question is the user's text of most cases; the request must carry it.
	Question = "Is ticket 4711 open?"
	// Instructions are the system instructions of most cases; the request must carry them.
	Instructions = "You help with support tickets."
	// ToolError is the failing tool's message, which the request must carry back.
	ToolError = "ticket 4711 is locked by another agent"
	// ImageURL is the image the image case gives by URL.
	ImageURL = "https://example.com/ticket-4711.png"
	// ForeignThought and ForeignSignature are another provider's reasoning, which no request may carry.
	ForeignThought   = "foreign thought 31337"
	ForeignSignature = "foreign-signature-31337"
	// ApprovalID is an approval request's id, which is the host's business and no request may carry.
	ApprovalID = "apr_9f8e7d6c"
	// StructuredKey is the property the structured answer's schema requires.
	StructuredKey = "priority_level"
	// ToolText is the text a tool returned (a JSON string as its result), which the request carries as text,
	// not JSON-quoted.
	ToolText = "Ticket 4711 is open."
	// ExtraProbe is the field the extra case adds through Options.Extra, beside the temperature.
	ExtraProbe = "typeshift_probe"
)

// PNG is the image the image case sends: one transparent pixel.
var PNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// PDF is the document the document case sends.
var PDF = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")

// Tools are the tools the tool cases offer: get_ticket and close_ticket, each taking {"number": integer}.
func Tools() []*toolset.Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer","description":"The ticket's number."}},"required":["number"],"additionalProperties":false}`)
	return []*toolset.Tool{
		{Name: "get_ticket", Description: "Reads one support ticket by its number.", Schema: schema},
		{Name: "close_ticket", Description: "Closes one support ticket by its number.", Schema: schema},
	}
}

// env is one case's run: the client against the replay server.
type env struct {
	p      Provider
	client chat.Client
	srv    *server
	f      *fixture
}

// Run runs every case of [Cases] against p, each in a subtest of its name, and the live cases under "live".
func Run(t *testing.T, p Provider) {
	if p.New == nil || p.Fixtures == nil || p.Name == "" {
		t.Fatal("providertest: Provider needs Name, New and Fixtures")
	}
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			if c.skip != nil {
				if why := c.skip(p); why != "" {
					t.Skip(why)
				}
			}
			f, ok := loadFixture(t, p.Fixtures, c.Name)
			switch {
			case c.offline:
				f = &fixture{}
			case !ok:
				t.Skipf("no fixture %s.txtar: %s", c.Name, c.Expects)
			}
			srv := newServer(t, f)
			c.run(t, &env{p: p, client: p.New(t, srv.URL), srv: srv, f: f})
		})
	}
	t.Run("live", func(t *testing.T) { runLive(t, p) })
}

// Cases returns the suite's cases in order.
func Cases() []Case {
	return []Case{
		{"text", "a whole answer with the text Answer, finish reason stop", caseText, nil, false},
		{"stream", "a streamed answer with the text Answer in two or more deltas, finish reason stop", caseStream, nil, false},
		{"tool_call", "one call of get_ticket with {\"number\":4711}, finish reason tool_calls", caseToolCall, nil, false},
		{"parallel_calls", "a streamed answer calling get_ticket with 4711 and 4712, finish reason tool_calls", caseParallel, nil, false},
		{"tool_error", "any text answer to a history whose close_ticket call failed", caseToolError, nil, false},
		{"approvals", "any text answer to a history holding an approval request and its answer", caseApprovals, nil, false},
		{"reasoning", "a streamed answer with signed reasoning and a get_ticket call; then any text answer; the second request carries the reasoning's and the call's ids and signatures", caseReasoning, nil, false},
		{"foreign_reasoning", "any text answer to a history holding another provider's reasoning", caseForeignReasoning, nil, false},
		{"image", "any text answer to a question with a PNG given by its bytes and one by URL", caseImage, nil, false},
		{"document", "any text answer to a question with a PDF given by its bytes", caseDocument, nil, false},
		{"structured", "a JSON object with a string priority_level, for a response format", caseStructured, nil, false},
		{"usage", "a streamed answer with usage as the fixture's usage line says, cached tokens among them, to a request marking its stable prefix", caseUsage, nil, false},
		{"finish_length", "a whole answer cut by the token limit", finishCase(chat.FinishLength), nil, false},
		{"finish_content_filter", "a whole answer stopped by the provider's filter or a refusal", finishCase(chat.FinishContentFilter), nil, false},
		{"cancel", "the beginning of a stream, held open (hold: true)", caseCancel, nil, false},
		{"rate_limit", "status 429 with Retry-After: 7", statusCase(429, false, 7*time.Second, chat.ErrRateLimited), nil, false},
		{"overloaded", "status 529 (or 503, where that is the provider's overload), for a stream", statusCase(529, true, 0, chat.ErrOverloaded), nil, false},
		{"server_error", "status 500", statusCase(500, false, 0, chat.ErrServer), nil, false},
		{"malformed_stream", "a stream with an event that is not JSON", brokenStream, nil, false},
		{"truncated_stream", "a stream cut before the model finished", brokenStream, nil, false},
		{"first_turn", "any text answer to instructions alone; then any text answer to a history that begins with the model's get_ticket call (the fixture's want lines check the turn the client puts first where its API wants one)", caseFirstTurn, nil, false},
		{"extra", "any text answer to a request whose Options.Extra adds ExtraProbe beside the temperature (after one that sets the temperature again, refused unsent)", caseExtra, needs("TemperatureField", func(p Provider) bool { return p.TemperatureField != "" }), false},
		{"reasoning_option", "any text answer to a request with Options.Reasoning (low effort, thoughts included); the fixture's want lines check the API's fields", caseReasoningOption, nil, false},
		{"tool_result_text", "any text answer to a history whose get_ticket call returned the string ToolText", caseToolResultText, nil, false},
		{"refused_file", "no exchange: the Provider's Refused file is refused before any request", caseRefusedFile, needs("Refused", func(p Provider) bool { return p.Refused != nil }), true},
	}
}

func question() []chat.Message { return []chat.Message{chat.UserText(Question)} }

func baseOptions() *chat.Options { return &chat.Options{Instructions: Instructions} }

func toolOptions() *chat.Options {
	o := baseOptions()
	o.Tools = Tools()
	return o
}

func caseText(t *testing.T, e *env) {
	resp, err := e.client.Respond(t.Context(), question(), baseOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, Answer, chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{Question, Instructions}}, nil)
}

func caseStream(t *testing.T, e *env) {
	texts := 0
	resp, err := chat.Collect(func(yield func(chat.Update, error) bool) {
		for u, err := range e.client.Stream(t.Context(), question(), baseOptions()) {
			for _, p := range u.Parts {
				if _, ok := p.(chat.Text); ok {
					texts++
				}
			}
			if !yield(u, err) {
				return
			}
		}
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if texts < 2 {
		t.Errorf("the text came in %d updates; want it streamed in deltas", texts)
	}
	checkAnswer(t, resp, Answer, chat.FinishStop) // the deltas joined equal the whole answer
	e.srv.checkRequests(t, [][]string{{Question, Instructions}}, nil)
}

func checkAnswer(t *testing.T, resp *chat.Response, text string, finish chat.FinishReason) {
	t.Helper()
	if len(resp.Messages) != 1 || resp.Messages[0].Role != chat.RoleAssistant {
		t.Fatalf("messages %+v: want one assistant message", resp.Messages)
	}
	if got := resp.Messages[0].Text(); text != "" && got != text {
		t.Errorf("text %q, want %q", got, text)
	} else if got == "" {
		t.Errorf("no text")
	}
	if resp.FinishReason != finish {
		t.Errorf("finish reason %q, want %q", resp.FinishReason, finish)
	}
}

func caseToolCall(t *testing.T, e *env) {
	resp, err := e.client.Respond(t.Context(), question(), toolOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if resp.FinishReason != chat.FinishToolCalls {
		t.Errorf("finish reason %q, want tool_calls", resp.FinishReason)
	}
	calls := allCalls(resp)
	checkCalls(t, calls, 4711)
	e.srv.checkRequests(t, [][]string{{Question, "get_ticket", "close_ticket", "Reads one support ticket by its number."}}, nil)
}

func allCalls(resp *chat.Response) []chat.ToolCall {
	var calls []chat.ToolCall
	for _, m := range resp.Messages {
		calls = append(calls, m.ToolCalls()...)
	}
	return calls
}

// checkCalls checks that calls are get_ticket calls of the numbers, in order, with distinct ids.
func checkCalls(t *testing.T, calls []chat.ToolCall, numbers ...int) {
	t.Helper()
	if len(calls) != len(numbers) {
		t.Fatalf("%d calls %+v, want %d", len(calls), calls, len(numbers))
	}
	ids := map[string]bool{}
	for i, c := range calls {
		if c.Name != "get_ticket" {
			t.Errorf("call %d names %q, want get_ticket", i, c.Name)
		}
		var args struct{ Number int }
		if err := json.Unmarshal(c.Arguments, &args); err != nil || args.Number != numbers[i] {
			t.Errorf("call %d arguments %s, want {\"number\":%d}", i, c.Arguments, numbers[i])
		}
		if c.ID == "" || ids[c.ID] {
			t.Errorf("call %d id %q: want a distinct id", i, c.ID)
		}
		ids[c.ID] = true
	}
}

func caseParallel(t *testing.T, e *env) {
	var calls []chat.ToolCall
	var finish chat.FinishReason
	for u, err := range e.client.Stream(t.Context(), question(), toolOptions()) {
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		for _, p := range u.Parts {
			if c, ok := p.(chat.ToolCall); ok {
				if !json.Valid(c.Arguments) {
					t.Errorf("call %q arrived with arguments %q: want each call whole", c.ID, c.Arguments)
				}
				calls = append(calls, c)
			}
		}
		if u.FinishReason != "" {
			finish = u.FinishReason
		}
	}
	checkCalls(t, calls, 4711, 4712)
	if finish != chat.FinishToolCalls {
		t.Errorf("finish reason %q, want tool_calls", finish)
	}
	e.srv.checkRequests(t, [][]string{{Question, "get_ticket"}}, nil)
}

func caseToolError(t *testing.T, e *env) {
	msgs := []chat.Message{
		chat.UserText("Close ticket 4711."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_close_1", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_close_1", Error: ToolError}}},
	}
	resp, err := e.client.Respond(t.Context(), msgs, toolOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"call_close_1", ToolError}}, nil)
}

func caseApprovals(t *testing.T, e *env) {
	call := chat.ToolCall{ID: "call_close_2", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711}`)}
	msgs := []chat.Message{
		chat.UserText("Close ticket 4711."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ApprovalRequest{ID: ApprovalID, Call: call, ToolID: "tickets.close_ticket"}}},
		{Role: chat.RoleUser, Parts: []chat.Part{chat.ApprovalAnswer{RequestID: ApprovalID, Approved: true}}},
		{Role: chat.RoleAssistant, Parts: []chat.Part{call}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_close_2", Result: json.RawMessage(`{"closed":true}`)}}},
	}
	resp, err := e.client.Respond(t.Context(), msgs, toolOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"call_close_2", "closed"}}, []string{ApprovalID})
}

// foreignTurn is an earlier exchange answered by another provider, whose reasoning no request may carry.
func foreignTurn() []chat.Message {
	return []chat.Message{
		chat.UserText("Hello."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "another-provider", ID: "rs_foreign", Text: ForeignThought, Signature: ForeignSignature},
			chat.Reasoning{Provider: "another-provider", Encrypted: ForeignSignature + "-encrypted"},
			chat.Text{Text: "Hello, how can I help?"},
		}},
	}
}

func caseReasoning(t *testing.T, e *env) {
	msgs := append(foreignTurn(), chat.UserText(Question))
	resp, err := chat.Collect(e.client.Stream(t.Context(), msgs, toolOptions()))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(resp.Messages) != 1 {
		t.Fatalf("messages %+v: want one assistant message", resp.Messages)
	}
	answer := resp.Messages[0]
	var want []string
	sawCall := false
	for _, p := range answer.Parts {
		switch p := p.(type) {
		case chat.Reasoning:
			if sawCall {
				t.Errorf("reasoning after the call it leads to: %+v", answer.Parts)
			}
			if p.Provider != e.p.Name {
				t.Errorf("reasoning of provider %q, want %q", p.Provider, e.p.Name)
			}
			if p.Signature == "" && p.Encrypted == "" {
				t.Errorf("reasoning %+v has neither a signature nor an encrypted form to send back", p)
			}
			for _, s := range []string{p.Signature, p.Encrypted, p.ID} {
				if s != "" {
					want = append(want, s)
				}
			}
		case chat.ToolCall:
			sawCall = true
			if p.ItemID != "" {
				want = append(want, p.ItemID) // the provider's own id of the call's item goes back with it
			}
		}
	}
	if len(want) == 0 {
		t.Fatalf("no reasoning in %+v", answer.Parts)
	}
	calls := answer.ToolCalls()
	checkCalls(t, calls, 4711)
	if t.Failed() {
		return
	}
	// The reasoning goes back with the call's result, stored and loaded as a run keeps it; the other provider's
	// does not.
	answer = storedAndLoaded(t, answer)
	msgs = append(msgs, answer, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{CallID: calls[0].ID, Result: json.RawMessage(`{"number":4711,"open":true}`)}}})
	resp, err = e.client.Respond(t.Context(), msgs, toolOptions())
	if err != nil {
		t.Fatalf("Respond with the reasoning: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{nil, append(want, calls[0].ID)}, []string{ForeignThought, ForeignSignature})
}

func caseForeignReasoning(t *testing.T, e *env) {
	resp, err := e.client.Respond(t.Context(), append(foreignTurn(), chat.UserText(Question)), baseOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err) // another provider's reasoning is left out, never an error
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"Hello, how can I help?", Question}}, []string{ForeignThought, ForeignSignature, "rs_foreign"})
}

func caseImage(t *testing.T, e *env) {
	msgs := []chat.Message{chat.UserFile("What is on these pictures?",
		chat.File{MediaType: "image/png", Data: PNG, Name: "pixel.png"},
		chat.File{URL: ImageURL})}
	resp, err := e.client.Respond(t.Context(), msgs, baseOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"What is on these pictures?", base64.StdEncoding.EncodeToString(PNG), "image/png", ImageURL}}, nil)
}

func caseDocument(t *testing.T, e *env) {
	msgs := []chat.Message{chat.UserFile("Summarise this manual.",
		chat.File{MediaType: "application/pdf", Data: PDF, Name: "manual.pdf"})}
	resp, err := e.client.Respond(t.Context(), msgs, baseOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"Summarise this manual.", base64.StdEncoding.EncodeToString(PDF), "application/pdf"}}, nil)
}

func caseStructured(t *testing.T, e *env) {
	o := baseOptions()
	o.ResponseFormat = &chat.ResponseFormat{Name: "ticket_priority", Strict: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"` + StructuredKey + `":{"type":"string","enum":["low","high"]}},"required":["` + StructuredKey + `"],"additionalProperties":false}`)}
	resp, err := e.client.Respond(t.Context(), question(), o)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	var got map[string]any
	if len(resp.Messages) > 0 {
		if err := json.Unmarshal([]byte(resp.Messages[0].Text()), &got); err != nil {
			t.Fatalf("answer %q is not a JSON object: %v", resp.Messages[0].Text(), err)
		}
	}
	if _, ok := got[StructuredKey].(string); !ok {
		t.Errorf("answer %v has no string %s", got, StructuredKey)
	}
	e.srv.checkRequests(t, [][]string{{StructuredKey}}, nil)
}

func caseUsage(t *testing.T, e *env) {
	want, err := parseUsage(e.f.usage)
	if err != nil {
		t.Fatalf("fixture's usage line %q: %v", e.f.usage, err)
	}
	if want.CacheReadTokens == 0 || want.InputTokens < want.CacheReadTokens+want.CacheWriteTokens || want.OutputTokens < want.ReasoningTokens {
		t.Fatalf("fixture's usage %+v: want cached tokens, counted in the input (and reasoning in the output)", want)
	}
	o := baseOptions()
	o.CacheMessages = 1 // the question is the stable prefix, for providers with explicit prompt caching
	resp, err := chat.Collect(e.client.Stream(t.Context(), question(), o))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	checkAnswer(t, resp, Answer, chat.FinishStop)
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	e.srv.checkRequests(t, nil, nil)
}

// parseUsage reads "input=2000 output=300 total=2300 cache_read=1800 cache_write=100 reasoning=120".
func parseUsage(s string) (chat.Usage, error) {
	var u chat.Usage
	fields := map[string]*int64{"input": &u.InputTokens, "output": &u.OutputTokens, "total": &u.TotalTokens,
		"cache_read": &u.CacheReadTokens, "cache_write": &u.CacheWriteTokens, "reasoning": &u.ReasoningTokens}
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		p, ok := fields[k]
		if !ok {
			return u, fmt.Errorf("unknown count %q", k)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return u, err
		}
		*p = n
	}
	return u, nil
}

func finishCase(want chat.FinishReason) func(t *testing.T, e *env) {
	return func(t *testing.T, e *env) {
		resp, err := e.client.Respond(t.Context(), question(), baseOptions())
		if err != nil {
			t.Fatalf("Respond: %v", err)
		}
		if resp.FinishReason != want {
			t.Errorf("finish reason %q, want %q", resp.FinishReason, want)
		}
		e.srv.checkRequests(t, nil, nil)
	}
}

func caseCancel(t *testing.T, e *env) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	updates, done := 0, make(chan error, 1)
	go func() {
		for u, err := range e.client.Stream(ctx, question(), baseOptions()) {
			if err != nil {
				done <- err
				return
			}
			if u.FinishReason != "" {
				done <- fmt.Errorf("the held stream finished (%s)", u.FinishReason)
				return
			}
			updates++
			if updates == 1 {
				cancel()
			}
		}
		done <- errors.New("the stream ended without an error after its context was canceled")
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want one that is context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream went on 10s after its context was canceled")
	}
	select {
	case <-e.srv.gone:
	case <-time.After(10 * time.Second):
		t.Error("the client kept the connection open after its context was canceled")
	}
}

func statusCase(status int, stream bool, retryAfter time.Duration, kind error) func(t *testing.T, e *env) {
	return func(t *testing.T, e *env) {
		var err error
		if stream {
			for _, err = range e.client.Stream(t.Context(), question(), baseOptions()) {
				if err != nil {
					break
				}
			}
		} else {
			_, err = e.client.Respond(t.Context(), question(), baseOptions())
		}
		var pe *chat.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("error %v (%T), want a *chat.ProviderError", err, err)
		}
		if status == 529 && e.f.exchanges[0].status == 503 {
			status = 503 // the provider's overload (Gemini's UNAVAILABLE)
		}
		if pe.StatusCode != status || pe.Provider != e.p.Name || !pe.Temporary() {
			t.Errorf("error %+v: want status %d of provider %q, temporary", pe, status, e.p.Name)
		}
		if pe.Message == "" {
			t.Errorf("error %+v: want the provider's message", pe)
		}
		if !errors.Is(err, kind) || errors.Is(err, chat.ErrStreamCut) {
			t.Errorf("error %v: want one that is %v, and not a cut stream", err, kind)
		}
		if pe.RetryAfter != retryAfter {
			t.Errorf("retry after %s, want %s", pe.RetryAfter, retryAfter)
		}
		e.srv.checkRequests(t, nil, nil) // one request: the SDK did not retry
	}
}

func brokenStream(t *testing.T, e *env) {
	var err error
	for u, uerr := range e.client.Stream(t.Context(), question(), baseOptions()) {
		if uerr != nil {
			err = uerr
			break
		}
		if u.FinishReason != "" {
			t.Errorf("a broken stream finished with %q", u.FinishReason)
		}
	}
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *chat.ProviderError", err, err)
	}
	if pe.Provider != e.p.Name {
		t.Errorf("error of provider %q, want %q", pe.Provider, e.p.Name)
	}
	if !errors.Is(err, chat.ErrStreamCut) || !chat.IsTemporary(err) {
		t.Errorf("error %v: want a temporary chat.ErrStreamCut: the answer broke off after it began", err)
	}
}

// runLive sends the plain, streamed and tool cases to the real API, checking the answers' shape.
func runLive(t *testing.T, p Provider) {
	var c chat.Client
	if p.Live != nil {
		c = p.Live(t)
	}
	if c == nil {
		t.Skip("no API key in the environment")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	t.Run("text", func(t *testing.T) {
		resp, err := c.Respond(ctx, []chat.Message{chat.UserText("Say hello in one word.")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, resp, "", chat.FinishStop)
		if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
			t.Errorf("usage %+v", resp.Usage)
		}
	})
	t.Run("stream", func(t *testing.T) {
		resp, err := chat.Collect(c.Stream(ctx, []chat.Message{chat.UserText("Count from 1 to 5.")}, nil))
		if err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, resp, "", chat.FinishStop)
	})
	t.Run("tool_call", func(t *testing.T) {
		o := toolOptions()
		o.ToolChoice = "get_ticket"
		resp, err := c.Respond(ctx, []chat.Message{chat.UserText("Read ticket 4711.")}, o)
		if err != nil {
			t.Fatal(err)
		}
		checkCalls(t, allCalls(resp), 4711)
	})
}

// needs returns a skip for a case that needs a Provider field.
func needs(field string, set func(Provider) bool) func(Provider) string {
	return func(p Provider) string {
		if set(p) {
			return ""
		}
		return "Provider." + field + " is not set"
	}
}

// storedAndLoaded returns m as a store gives it back: encoded and decoded, so that what a provider needs back
// must survive the stored form.
func storedAndLoaded(t *testing.T, m chat.Message) chat.Message {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("store %+v: %v", m, err)
	}
	var out chat.Message
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("load %s: %v", b, err)
	}
	return out
}

// caseFirstTurn sends instructions alone, then a history that begins with the model's call: APIs that want a
// user turn first get one from the client, not an error.
func caseFirstTurn(t *testing.T, e *env) {
	resp, err := e.client.Respond(t.Context(), nil, baseOptions())
	if err != nil {
		t.Fatalf("Respond to instructions alone: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	msgs := []chat.Message{
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_first_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_first_1", Result: json.RawMessage(`{"number":4711,"open":true}`)}}},
	}
	resp, err = e.client.Respond(t.Context(), msgs, toolOptions())
	if err != nil {
		t.Fatalf("Respond to a history that begins with the model's call: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{Instructions}, {"call_first_1", Instructions}}, nil)
}

// caseExtra checks that Options.Extra adds to the request and never replaces what the client set: a field the
// options set is a *chat.ExtraConflictError naming it, before any request; a new field beside it is sent.
func caseExtra(t *testing.T, e *env) {
	path := strings.Split(e.p.TemperatureField, ".")
	nest := func(keys []string, leaf string) map[string]json.RawMessage {
		v := leaf
		for i := len(keys) - 1; i > 0; i-- {
			v = `{"` + keys[i] + `":` + v + `}`
		}
		return map[string]json.RawMessage{keys[0]: json.RawMessage(v)}
	}
	temp := 0.25
	o := baseOptions()
	o.Temperature = &temp
	o.Extra = nest(path, "1.5")
	_, err := e.client.Respond(t.Context(), question(), o)
	var ce *chat.ExtraConflictError
	if !errors.As(err, &ce) || !errors.Is(err, chat.ErrInvalidRequest) {
		t.Fatalf("error %v (%T), want a *chat.ExtraConflictError, which is chat.ErrInvalidRequest", err, err)
	}
	if ce.Field != e.p.TemperatureField {
		t.Errorf("the conflict names %q, want %q", ce.Field, e.p.TemperatureField)
	}
	if n := len(e.srv.requests()); n != 0 {
		t.Fatalf("the client sent %d requests with a conflicting Extra; want none", n)
	}
	o.Extra = nest(append(path[:len(path)-1:len(path)-1], ExtraProbe), `"31337"`)
	resp, err := e.client.Respond(t.Context(), question(), o)
	if err != nil {
		t.Fatalf("Respond with Extra beside the temperature: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{Question, `"` + ExtraProbe + `":"31337"`, "0.25"}}, nil)
}

// caseReasoningOption sends the typed reasoning options; the fixture says what the API's fields must be.
func caseReasoningOption(t *testing.T, e *env) {
	yes := true
	o := baseOptions()
	o.Reasoning = &chat.ReasoningOptions{Effort: chat.ReasoningLow, IncludeThoughts: &yes}
	resp, err := e.client.Respond(t.Context(), question(), o)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{Question}}, nil)
}

// caseToolResultText checks that a tool's string result reaches the model as its text, not JSON-quoted.
func caseToolResultText(t *testing.T, e *env) {
	result, _ := json.Marshal(ToolText)
	msgs := []chat.Message{
		chat.UserText(Question),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_text_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_text_1", Result: result}}},
	}
	resp, err := e.client.Respond(t.Context(), msgs, toolOptions())
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	checkAnswer(t, resp, "", chat.FinishStop)
	e.srv.checkRequests(t, [][]string{{"call_text_1", ToolText}}, []string{`\"` + ToolText + `\"`})
}

// caseRefusedFile checks that a file the API cannot take is refused before the request, saying why.
func caseRefusedFile(t *testing.T, e *env) {
	_, err := e.client.Respond(t.Context(), []chat.Message{chat.UserFile(Question, *e.p.Refused)}, baseOptions())
	if !errors.Is(err, chat.ErrInvalidRequest) {
		t.Fatalf("error %v, want one that is chat.ErrInvalidRequest", err)
	}
	if n := len(e.srv.requests()); n != 0 {
		t.Errorf("the client sent %d requests; want the file refused before any", n)
	}
}
