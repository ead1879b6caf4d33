package providertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// A Replayer describes a client to the replay suite: which wire format it speaks and how to build it against
// the local server that plays a recording.
type Replayer struct {
	// Name is the provider's name: the Provider of the [chat.Reasoning] parts its client writes.
	Name string
	// Wire is the API the client speaks, and the recordings hold.
	Wire Wire
	// Recordings holds the recordings [Replay.Recording] names; nil means the suite's own ([Recordings]).
	Recordings fs.FS
	// New returns a client for rp whose requests go to baseURL (the server playing the recording, whose paths are
	// the recorded ones: an SDK that adds no /v1 itself is given baseURL+"/v1/"), with the SDK's retries off.
	// rp says how the recording's client was set up beyond the options (StrictTools).
	New func(t testing.TB, baseURL string, rp Replay) chat.Client
	// Ignore lists places in every request of this wire that the comparison leaves out (see [WireIgnores] for
	// the suite's own).
	Ignore []Ignore
}

// A Replay is one recorded conversation and what a user of the library gives it before its first request.
// The follow-ups are the suite's: after each answer it appends the client's own messages (never the recorded
// ones: what the client kept is what must go back), then the tool results the recorded follow-up carried, one
// per call of the answer, and sends the conversation again.
type Replay struct {
	// Recording names the recording in Replayer.Recordings.
	Recording string
	// Covers says what the recording shows, for a reader and a failure's message.
	Covers string
	// Messages are the conversation before its first request.
	Messages []chat.Message
	// FollowUps, when set, are the messages a user adds after each answer, in place of tool results: the i-th
	// before the (i+2)-th request. An empty entry means the tool results of the recording.
	FollowUps [][]chat.Message
	// Options are every request's options. A zero Model is the recorded model.
	Options *chat.Options
	// StrictTools says the recording's tools were sent in strict mode, a per-client setting where a client has
	// one (openai's WithStrictTools).
	StrictTools bool
	// Ignore lists places in this recording's requests the comparison leaves out, with why.
	Ignore []Ignore
	// Answer, when set, is the structured answer the last response must hold whole, compared as a JSON value:
	// its text (native structured output), or the arguments of its call of AnswerTool.
	Answer json.RawMessage
	// AnswerTool names the tool whose call carries Answer (tool mode); empty means the answer is the text.
	AnswerTool string
}

// WireIgnores are the places the suite itself leaves out of every request of a wire, and why. They are few on
// purpose: each is a thing no recording can judge.
var WireIgnores = map[Wire][]Ignore{
	Gemini: {
		{Path: "contents[].parts[].functionCall.id", Why: "Gemini 2 answers carry no call id; a library may make one up and send it back, or send none"},
		{Path: "contents[].parts[].functionResponse.id", Why: "as functionCall.id"},
		{Path: "tools[].functionDeclarations[].parametersJsonSchema.propertyOrdering", Why: "the library sends the properties' declared order, a Gemini extension other libraries leave to the API"},
		{Path: "generationConfig.responseJsonSchema.propertyOrdering", Why: "as the tools' propertyOrdering"},
	},
}

// RunReplays replays each recording through a client of r, each in a subtest named after its file, and fails
// on any difference: a request the client sent that is not the recorded one (its JSON compared as values, in
// canonical form, without the places Ignore lists), an answer the client decoded into anything but what the
// recorded answer holds (text, reasoning with its signatures and encrypted forms, tool calls with their ids
// and arguments, usage with cached and reasoning tokens, the finish reason), or an interaction left unplayed.
func RunReplays(t *testing.T, r Replayer, replays []Replay) {
	if r.New == nil || r.Wire == "" {
		t.Fatal("providertest: Replayer needs Wire and New")
	}
	if r.Recordings == nil {
		r.Recordings = Recordings(r.Wire)
		if r.Recordings == nil {
			t.Fatalf("providertest: the suite holds no recordings of wire %q; give Replayer.Recordings", r.Wire)
		}
	}
	for _, rp := range replays {
		name := strings.TrimSuffix(rp.Recording, ".yaml")
		t.Run(name, func(t *testing.T) { Play(t, r, rp) })
	}
}

// Play replays one recording through a client of r, as [RunReplays] does each.
func Play(t testing.TB, r Replayer, rp Replay) {
	t.Helper()
	if r.Recordings == nil {
		r.Recordings = Recordings(r.Wire)
	}
	if r.Recordings == nil {
		t.Fatalf("providertest: no recordings of wire %q", r.Wire)
	}
	rec, err := LoadRecording(r.Recordings, rp.Recording)
	if err != nil {
		t.Fatal(err)
	}
	runReplay(t, r, rp, rec)
}

func runReplay(t testing.TB, r Replayer, rp Replay, rec *Recording) {
	t.Helper()
	srv := newPlayer(t, rec)
	client := r.New(t, srv.URL, rp)
	ignores := append(append(append([]Ignore(nil), WireIgnores[r.Wire]...), r.Ignore...), rp.Ignore...)
	opts := rp.Options.Clone()
	if opts.Model == "" {
		opts.Model = r.Wire.model(rec.Interactions[0])
	}
	msgs := append([]chat.Message(nil), rp.Messages...)
	var last *chat.Response
	for i, in := range rec.Interactions {
		stream := r.Wire.streamed(in)
		var resp *chat.Response
		var err error
		if stream {
			resp, err = chat.Collect(client.Stream(t.Context(), msgs, opts))
		} else {
			resp, err = client.Respond(t.Context(), msgs, opts)
		}
		sent, ok := srv.sent(i)
		if !ok {
			t.Fatalf("interaction %d: the client sent no request (error %v)", i+1, err)
		}
		if sent.path != pathOf(in.URL) {
			t.Errorf("interaction %d: the client sent %s %s; the recording %s %s", i+1, sent.method, sent.path, in.Method, pathOf(in.URL))
		}
		diffs, cerr := compareRequests(r.Wire, in.RequestBody, sent.body, ignores)
		if cerr != nil {
			t.Fatalf("interaction %d: %v", i+1, cerr)
		}
		if len(diffs) > 0 {
			var b strings.Builder
			for _, d := range diffs {
				b.WriteString("\n\t" + d.String())
			}
			t.Errorf("interaction %d: the request differs from the recorded one (%s):%s", i+1, rp.Covers, b.String())
		}
		if err != nil {
			t.Fatalf("interaction %d: the client failed on the recorded answer: %v", i+1, err)
		}
		want, err := r.Wire.answer(in, stream)
		if err != nil {
			t.Fatalf("interaction %d: reading the recorded answer: %v", i+1, err)
		}
		checkReplayAnswer(t, i+1, r.Name, resp, want)
		last = resp
		msgs = append(msgs, resp.Messages...)
		if i+1 < len(rec.Interactions) {
			if i < len(rp.FollowUps) && len(rp.FollowUps[i]) > 0 {
				msgs = append(msgs, rp.FollowUps[i]...)
				continue
			}
			next, err := followUp(r.Wire, resp, rec.Interactions[i+1].RequestBody)
			if err != nil {
				t.Fatalf("interaction %d: %v", i+2, err)
			}
			msgs = append(msgs, next...)
		}
	}
	if n := srv.count(); n != len(rec.Interactions) {
		t.Errorf("the client sent %d requests; the recording has %d interactions", n, len(rec.Interactions))
	}
	if rp.Answer != nil {
		checkStructuredAnswer(t, rp, last)
	}
}

// checkStructuredAnswer checks that the last response holds rp.Answer whole: as its text, or as the arguments of
// its call of rp.AnswerTool.
func checkStructuredAnswer(t testing.TB, rp Replay, resp *chat.Response) {
	t.Helper()
	got, where := StructuredAnswer(resp, rp.AnswerTool)
	if got == nil {
		t.Errorf("the last answer holds no structured answer (%s); want %s", where, rp.Answer)
		return
	}
	if !sameJSON(got, rp.Answer) {
		t.Errorf("the structured answer (%s) is %s; want %s", where, got, rp.Answer)
	}
}

// StructuredAnswer returns the structured answer a response holds: the arguments of its call of tool, or, for
// an empty tool, its text when that is one JSON value; nil when it holds none. where says which it read.
func StructuredAnswer(resp *chat.Response, tool string) (answer json.RawMessage, where string) {
	if resp == nil {
		return nil, "no response"
	}
	if tool != "" {
		for _, m := range resp.Messages {
			for _, c := range m.ToolCalls() {
				if c.Name == tool {
					return json.RawMessage(c.Arguments), "the arguments of the call of " + tool
				}
			}
		}
		return nil, "no call of " + tool
	}
	var text strings.Builder
	for _, m := range resp.Messages {
		text.WriteString(m.Text())
	}
	if !json.Valid([]byte(text.String())) {
		return nil, fmt.Sprintf("the text %q is not one JSON value", clip(text.String()))
	}
	return json.RawMessage(text.String()), "the text"
}

// RecordedImage returns the first image a recording's first request carried by its bytes, with its media type:
// a replay's input, taken from the recording rather than copied beside it.
func RecordedImage(fsys fs.FS, name string, w Wire) (chat.File, error) {
	rec, err := LoadRecording(fsys, name)
	if err != nil {
		return chat.File{}, err
	}
	v, err := decodeJSON(rec.Interactions[0].RequestBody)
	if err != nil {
		return chat.File{}, err
	}
	var found chat.File
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			mt, data := "", ""
			switch {
			case w == Anthropic && str(x["type"]) == "base64":
				mt, data = str(x["media_type"]), str(x["data"])
			case w == Gemini && x["mimeType"] != nil && x["data"] != nil:
				mt, data = str(x["mimeType"]), str(x["data"])
			case (w == Responses && str(x["type"]) == "input_image") || (w == Chat && str(x["type"]) == "image_url"):
				u := str(x["image_url"])
				if w == Chat {
					u = str(obj(x["image_url"])["url"])
				}
				if rest, ok := strings.CutPrefix(u, "data:"); ok {
					mt, data, _ = strings.Cut(rest, ";base64,")
				}
			}
			if strings.HasPrefix(mt, "image/") && data != "" {
				b, err := base64.StdEncoding.DecodeString(canonicalBase64(data))
				if err == nil {
					found = chat.File{MediaType: mt, Data: b}
					return true
				}
			}
			for _, k := range sortedKeys(x) {
				if walk(x[k]) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	if !walk(v) {
		return chat.File{}, fmt.Errorf("recording %s: no image in the first request", name)
	}
	return found, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// followUp returns the tool message answering resp's calls with the results the recorded follow-up carried:
// by call id, or, where the recording's ids are not the client's (ids a library made up), in order.
func followUp(w Wire, resp *chat.Response, recorded []byte) ([]chat.Message, error) {
	var calls []chat.ToolCall
	for _, m := range resp.Messages {
		calls = append(calls, m.ToolCalls()...)
	}
	results := w.results(recorded)
	if len(calls) == 0 {
		return nil, fmt.Errorf("the recording goes on after an answer without tool calls; give the user's turn in Replay.FollowUps")
	}
	if len(results) != len(calls) {
		return nil, fmt.Errorf("the answer has %d tool calls; the recorded follow-up answers %d", len(calls), len(results))
	}
	byID := map[string]result{}
	for _, r := range results {
		byID[r.callID] = r
	}
	msg := chat.Message{Role: chat.RoleTool}
	for i, c := range calls {
		r, ok := byID[c.ID]
		if !ok {
			r = results[i]
		}
		tr := chat.ToolResult{CallID: c.ID}
		switch {
		case r.isError:
			tr.Error = r.text
		case r.value != nil:
			tr.Result = r.value
		default:
			tr.Result, _ = json.Marshal(r.text)
		}
		msg.Parts = append(msg.Parts, tr)
	}
	return []chat.Message{msg}, nil
}

// checkReplayAnswer compares what the client made of a recorded answer with what the answer holds.
func checkReplayAnswer(t testing.TB, n int, provider string, resp *chat.Response, want answer) {
	t.Helper()
	var text strings.Builder
	var calls []chat.ToolCall
	var reasons []chat.Reasoning
	for _, m := range resp.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				text.WriteString(p.Text)
			case chat.ToolCall:
				calls = append(calls, p)
			case chat.Reasoning:
				reasons = append(reasons, p)
			}
		}
	}
	if text.String() != want.text {
		t.Errorf("interaction %d: text %q; the recorded answer has %q", n, text.String(), want.text)
	}
	if len(calls) != len(want.calls) {
		t.Errorf("interaction %d: %d tool calls %+v; the recorded answer has %d", n, len(calls), calls, len(want.calls))
	} else {
		seen := map[string]bool{}
		for i, c := range calls {
			w := want.calls[i]
			if c.Name != w.name || (w.id != "" && c.ID != w.id) || c.ID == "" || seen[c.ID] {
				t.Errorf("interaction %d: call %d is %s (id %q); the recorded answer has %s (id %q), each id distinct", n, i, c.Name, c.ID, w.name, w.id)
			}
			seen[c.ID] = true
			if !sameJSON(c.Arguments, w.args) {
				t.Errorf("interaction %d: call %d arguments %s; recorded %s", n, i, c.Arguments, w.args)
			}
		}
	}
	var thought strings.Builder
	for _, r := range reasons {
		if r.Provider != provider {
			t.Errorf("interaction %d: a reasoning part of provider %q, want %q", n, r.Provider, provider)
		}
		thought.WriteString(r.Text)
	}
	for i, w := range want.reasoning {
		if w.text != "" && !strings.Contains(squash(thought.String()), squash(w.text)) {
			t.Errorf("interaction %d: the reasoning %d of the recorded answer (%q) is not among the answer's reasoning %q", n, i, clip(w.text), clip(thought.String()))
		}
		if w.signature != "" && !hasReasoning(reasons, func(r chat.Reasoning) bool { return r.Signature == w.signature }) {
			t.Errorf("interaction %d: the signature of reasoning %d (%s) was not kept", n, i, clip(w.signature))
		}
		if w.encrypted != "" && !hasReasoning(reasons, func(r chat.Reasoning) bool { return r.Encrypted == w.encrypted }) {
			t.Errorf("interaction %d: the encrypted form of reasoning %d (%s) was not kept", n, i, clip(w.encrypted))
		}
		if w.id != "" && !hasReasoning(reasons, func(r chat.Reasoning) bool { return r.ID == w.id }) {
			t.Errorf("interaction %d: the id of reasoning %d (%s) was not kept", n, i, w.id)
		}
	}
	if resp.Usage != want.usage {
		t.Errorf("interaction %d: usage %+v; the recorded answer's is %+v", n, resp.Usage, want.usage)
	}
	if resp.FinishReason != want.finish {
		t.Errorf("interaction %d: finish reason %q; the recorded answer's is %q", n, resp.FinishReason, want.finish)
	}
}

func hasReasoning(rs []chat.Reasoning, f func(chat.Reasoning) bool) bool {
	for _, r := range rs {
		if f(r) {
			return true
		}
	}
	return false
}

// squash drops white space, so that summary parts joined one way or another compare equal.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func sameJSON(a, b []byte) bool {
	x, errA := decodeJSON(a)
	y, errB := decodeJSON(b)
	if errA != nil || errB != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return len(diff("", numbers(x), numbers(y), nil)) == 0
}

func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.EscapedPath()
}

// player serves a recording's answers in order, the n-th request getting the n-th answer, and keeps what each
// request sent.
type player struct {
	*httptest.Server
	rec *Recording

	mu   sync.Mutex
	reqs []sentRequest
}

type sentRequest struct {
	method, path string
	body         []byte
}

func newPlayer(t testing.TB, rec *Recording) *player {
	p := &player{rec: rec}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// hopHeaders describe the recorded transfer, not the body as the recording keeps it (decoded, whole).
var hopHeaders = []string{"Content-Length", "Content-Encoding", "Transfer-Encoding", "Connection", "Keep-Alive"}

func (p *player) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	n := len(p.reqs)
	p.reqs = append(p.reqs, sentRequest{method: r.Method, path: r.URL.EscapedPath(), body: body})
	p.mu.Unlock()
	if n >= len(p.rec.Interactions) {
		http.Error(w, fmt.Sprintf("providertest: request %d, but the recording has %d interactions", n+1, len(p.rec.Interactions)), http.StatusTeapot)
		return
	}
	in := p.rec.Interactions[n]
	for k, vs := range in.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	if w.Header().Get("Content-Type") == "" {
		if isStream(in.Body) {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	w.WriteHeader(in.Status)
	_, _ = w.Write(in.Body)
}

func (p *player) sent(i int) (sentRequest, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.reqs) {
		return sentRequest{}, false
	}
	return p.reqs[i], true
}

func (p *player) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}
