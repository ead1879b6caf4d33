package providertest

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// A Playback is a recording played by a local server for a client a test drives itself: an agent's run on a
// provider pointed at URL, say, where the replay suite's own loop (RunReplays) would not fit. The server answers
// the n-th request with the n-th recorded answer; Check then holds what the client sent to what the recording's
// client sent, as the replay suite does.
type Playback struct {
	// URL is the server's address, the recorded paths under it: give it to an SDK as its base URL (OpenAI's SDK,
	// which adds no /v1 itself, as URL+"/v1/").
	URL string
	// Model is the model the recording's first request named: a client must ask for it, as the request is
	// compared.
	Model string
	// Recording is the recording played.
	Recording *Recording

	wire Wire
	srv  *player
}

// Serve starts a server that plays the suite's recording name of wire w (a file under
// testdata/recorded/<dir>/, see [Recordings]), closed when the test ends.
func Serve(t testing.TB, w Wire, name string) *Playback {
	t.Helper()
	fsys := Recordings(w)
	if fsys == nil {
		t.Fatalf("providertest: no recordings of wire %q", w)
	}
	return ServeFS(t, w, fsys, name)
}

// ServeFS is [Serve] for a recording of one's own, read from fsys.
func ServeFS(t testing.TB, w Wire, fsys fs.FS, name string) *Playback {
	t.Helper()
	rec, err := LoadRecording(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	srv := newPlayer(t, rec)
	return &Playback{URL: srv.URL, Model: w.model(rec.Interactions[0]), Recording: rec, wire: w, srv: srv}
}

// Requests returns the bodies of the requests the server received so far, in order.
func (p *Playback) Requests() [][]byte {
	p.srv.mu.Lock()
	defer p.srv.mu.Unlock()
	out := make([][]byte, len(p.srv.reqs))
	for i, r := range p.srv.reqs {
		out[i] = r.body
	}
	return out
}

// Check fails t for every place where a request the server received differs from the recorded one (their JSON
// compared as values in canonical form, without [WireIgnores] and the places ignore lists, each with its
// reason), for a request to another path, and for an interaction the client did not play or one it asked
// beyond the recording.
func (p *Playback) Check(t testing.TB, ignore ...Ignore) {
	t.Helper()
	ignores := append(append([]Ignore(nil), WireIgnores[p.wire]...), ignore...)
	n := p.srv.count()
	for i, in := range p.Recording.Interactions {
		sent, ok := p.srv.sent(i)
		if !ok {
			break
		}
		if sent.path != pathOf(in.URL) {
			t.Errorf("interaction %d: the client sent %s %s; the recording %s %s", i+1, sent.method, sent.path, in.Method, pathOf(in.URL))
		}
		diffs, err := compareRequests(p.wire, in.RequestBody, sent.body, ignores)
		if err != nil {
			t.Errorf("interaction %d: %v", i+1, err)
			continue
		}
		if len(diffs) > 0 {
			var b strings.Builder
			for _, d := range diffs {
				b.WriteString("\n\t" + d.String())
			}
			t.Errorf("interaction %d of %s: the request differs from the recorded one:%s", i+1, p.Recording.Name, b.String())
		}
	}
	if n != len(p.Recording.Interactions) {
		t.Errorf("%s: the client sent %d requests; the recording has %d interactions", p.Recording.Name, n, len(p.Recording.Interactions))
	}
}

// RecordedAnswers returns the replays of a wire's recordings whose last answer is a structured answer, native
// (Replay.AnswerTool empty: the answer is the text, asked for by Options.ResponseFormat) or through the answer
// tool (Replay.AnswerTool, offered among Options.Tools and forced by Options.ToolChoice): the schema, the tools,
// the prompt and the answer (Replay.Answer) a test of a run's answer stage starts from. Their tools other than
// the answer tool return what the recording's follow-up carried (get_user_country: "Mexico").
func RecordedAnswers(w Wire) ([]Replay, error) {
	all, err := Recorded(w)
	if err != nil {
		return nil, err
	}
	var out []Replay
	for _, rp := range all {
		if rp.Answer != nil {
			out = append(out, rp)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("providertest: no structured answers recorded for wire %q", w)
	}
	return out, nil
}
