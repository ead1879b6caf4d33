package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/matryer/is"
	openaisdk "github.com/openai/openai-go/v3/option"
	"golang.org/x/tools/txtar"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/cassette"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

const secretKey = "sk-live-SECRET-9f8e7d6c5b4a"

// provider builds a client of one provider's SDK whose HTTP client is rec's.
type provider struct {
	name     string
	fixtures string // the provider's conformance fixtures
	new      func(t *testing.T, baseURL string, hc *http.Client) chat.Client
}

var providers = []provider{
	{"openai", "../openai/testdata/conformance", func(t *testing.T, baseURL string, hc *http.Client) chat.Client {
		return openai.New(openaisdk.WithBaseURL(baseURL), openaisdk.WithAPIKey(secretKey), openaisdk.WithHTTPClient(hc),
			openaisdk.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
	}},
	{"anthropic", "../anthropic/testdata/conformance", func(t *testing.T, baseURL string, hc *http.Client) chat.Client {
		return anthropic.New(anthropicsdk.WithBaseURL(baseURL), anthropicsdk.WithAPIKey(secretKey), anthropicsdk.WithHTTPClient(hc),
			anthropicsdk.WithMaxRetries(0)).WithModel("claude-sonnet-4-5")
	}},
	{"gemini", "../gemini/testdata/conformance", func(t *testing.T, baseURL string, hc *http.Client) chat.Client {
		c, err := gemini.New(t.Context(), &genai.ClientConfig{APIKey: secretKey, Backend: genai.BackendGeminiAPI,
			HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
		if err != nil {
			t.Fatal(err)
		}
		return c.WithModel("gemini-2.5-flash")
	}},
}

// fixtureServer answers every request with the response of a conformance fixture, in the provider's wire
// format, and counts the requests that carried the key.
type fixtureServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls int
}

func newFixtureServer(t *testing.T, dir, name string) *fixtureServer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	for _, f := range txtar.Parse(data).Files {
		if f.Name == "response" {
			body = f.Data
		}
	}
	if body == nil {
		t.Fatalf("%s/%s.txtar has no response", dir, name)
	}
	s := &fixtureServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization")+r.Header.Get("X-Api-Key")+r.Header.Get("X-Goog-Api-Key"), secretKey) {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		s.calls++
		s.mu.Unlock()
		w.Header().Set("Date", "Thu, 03 Dec 2026 04:40:00 GMT")
		w.Header().Set("Set-Cookie", "session="+secretKey)
		if strings.HasPrefix(string(body), "data:") || strings.HasPrefix(string(body), "event:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func ask(ctx context.Context, c chat.Client, stream bool, question string) (string, error) {
	msgs := []chat.Message{chat.SystemText(providertest.Instructions), chat.UserText(question)}
	if !stream {
		resp, err := c.Respond(ctx, msgs, &chat.Options{})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, m := range resp.Messages {
			b.WriteString(m.Text())
		}
		return b.String(), nil
	}
	var b strings.Builder
	for u, err := range c.Stream(ctx, msgs, &chat.Options{}) {
		if err != nil {
			return "", err
		}
		b.WriteString(chat.Message{Parts: u.Parts}.Text())
	}
	return b.String(), nil
}

// A run through each provider's real SDK is recorded against a server in its wire format, then replayed with the
// server gone, whole and streamed, and gives the same answer; the key never reaches the file.
func TestRecordThenReplay(t *testing.T) {
	for _, p := range providers {
		for _, stream := range []bool{false, true} {
			name := map[bool]string{false: "text", true: "stream"}[stream]
			t.Run(p.name+"/"+name, func(t *testing.T) {
				is := is.New(t)
				path := filepath.Join(t.TempDir(), "cassettes", "run.txt")
				srv := newFixtureServer(t, p.fixtures, name)
				t.Run("record", func(t *testing.T) {
					is := is.New(t)
					rec := cassette.New(t, path, &cassette.Options{Mode: cassette.Record})
					got, err := ask(t.Context(), p.new(t, srv.URL, rec.Client()), stream, providertest.Question)
					is.NoErr(err)
					is.Equal(got, providertest.Answer)
				})
				is.Equal(srv.calls, 1) // the recording reached the server once
				srv.Close()

				data, err := os.ReadFile(path)
				is.NoErr(err)
				is.True(!strings.Contains(string(data), secretKey))            // no key in the file
				is.True(strings.Contains(string(data), cassette.Scrubbed))     // the key's header is there, scrubbed
				is.True(strings.Contains(string(data), providertest.Question)) // the request's body is kept
				is.True(!strings.Contains(string(data), "Date:"))              // varying headers are left out
				if stream {
					is.True(strings.Contains(string(data), "\ndata: ")) // the stream is kept as its events
				}

				t.Run("replay", func(t *testing.T) {
					is := is.New(t)
					rec := cassette.New(t, path, &cassette.Options{Mode: cassette.Replay})
					got, err := ask(t.Context(), p.new(t, srv.URL, rec.Client()), stream, providertest.Question)
					is.NoErr(err)
					is.Equal(got, providertest.Answer)
					is.NoErr(rec.Err())
				})
			})
		}
	}
}

// capture is a test that keeps the errors a recorder reports instead of failing.
type capture struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (c *capture) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

func record(t *testing.T, p provider, name, question string, opts cassette.Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.txt")
	srv := newFixtureServer(t, p.fixtures, name)
	t.Run("record", func(t *testing.T) {
		opts.Mode = cassette.Record
		rec := cassette.New(t, path, &opts)
		if _, err := ask(t.Context(), p.new(t, srv.URL, rec.Client()), name == "stream", question); err != nil {
			t.Fatal(err)
		}
	})
	srv.Close()
	return path
}

// A request that differs from the recording fails closed: the SDK gets an error, the test fails, and the error
// names the field with its recorded and new value.
func TestMissNamesTheField(t *testing.T) {
	for _, p := range providers[:2] {
		t.Run(p.name, func(t *testing.T) {
			is := is.New(t)
			path := record(t, p, "text", providertest.Question, cassette.Options{})
			c := &capture{TB: t}
			rec := cassette.New(c, path, &cassette.Options{Mode: cassette.Replay, AllowUnused: true})
			_, err := ask(t.Context(), p.new(t, "http://127.0.0.1:1", rec.Client()), false, "Is ticket 4712 open?")
			is.True(err != nil) // the SDK got no answer
			var miss *cassette.MissError
			is.True(errors.As(rec.Err(), &miss))
			is.True(errors.Is(rec.Err(), cassette.ErrMiss))
			is.Equal(miss.Nearest, 1)
			is.Equal(len(miss.Differences), 1) // only the question differs
			d := miss.Differences[0]
			is.True(strings.HasPrefix(d.Field, "body."))
			is.True(strings.Contains(d.Field, "messages")) // a path into the messages
			is.True(strings.Contains(d.Recorded, "4711"))
			is.True(strings.Contains(d.Got, "4712"))
			is.Equal(len(c.errors), 1) // the test was failed
			is.True(strings.Contains(c.errors[0], d.Field))
			t.Log(c.errors[0])
		})
	}
}

// A replay that asks for fewer exchanges than were recorded fails; one that asks for more fails with every
// exchange used.
func TestReplayCountsExchanges(t *testing.T) {
	is := is.New(t)
	p := providers[0]
	path := record(t, p, "text", providertest.Question, cassette.Options{})

	t.Run("unused", func(t *testing.T) {
		c := &capture{TB: t}
		t.Run("inner", func(t *testing.T) {
			c.TB = t
			cassette.New(c, path, &cassette.Options{Mode: cassette.Replay})
		})
		is.Equal(len(c.errors), 1)
		is.True(strings.Contains(c.errors[0], "never asked for"))
	})
	t.Run("one too many", func(t *testing.T) {
		c := &capture{TB: t}
		rec := cassette.New(c, path, &cassette.Options{Mode: cassette.Replay})
		client := p.new(t, "http://127.0.0.1:1", rec.Client())
		_, err := ask(t.Context(), client, false, providertest.Question)
		is.NoErr(err)
		_, err = ask(t.Context(), client, false, providertest.Question)
		is.True(errors.Is(err, cassette.ErrMiss) || err != nil)
		var miss *cassette.MissError
		is.True(errors.As(rec.Err(), &miss))
		is.Equal(miss.Nearest, 0)
		is.True(strings.Contains(miss.Error(), "every recorded exchange was used"))
	})
}

// Redacted fields never reach the file, in the request or in a streamed response, and a redacted request field
// may differ on replay.
func TestScrubAndRedact(t *testing.T) {
	is := is.New(t)
	p := providers[0]
	srv := newFixtureServer(t, p.fixtures, "stream")
	path := filepath.Join(t.TempDir(), "run.txt")
	opts := cassette.Options{Redact: []string{"model", "system_fingerprint"}, Scrub: []string{"Content-Type"}}
	t.Run("record", func(t *testing.T) {
		opts := opts
		opts.Mode = cassette.Record
		rec := cassette.New(t, path, &opts)
		c := openai.New(openaisdk.WithBaseURL(srv.URL), openaisdk.WithAPIKey(secretKey), openaisdk.WithHTTPClient(rec.Client()),
			openaisdk.WithMaxRetries(0), openaisdk.WithHeader("X-Api-Key", secretKey)).WithModel("gpt-secret-model")
		got, err := ask(t.Context(), c, true, providertest.Question)
		is.NoErr(err)
		is.Equal(got, providertest.Answer)
	})
	data, err := os.ReadFile(path)
	is.NoErr(err)
	text := string(data)
	is.True(!strings.Contains(text, secretKey))          // neither the key's header nor the cookie
	is.True(!strings.Contains(text, "gpt-secret-model")) // a redacted request field
	is.True(!strings.Contains(text, "fp_6f2eabb9a5"))    // a redacted field of every streamed event
	is.True(strings.Contains(text, `"model": "[redacted]"`))
	is.True(strings.Contains(text, "Content-Type: [scrubbed]")) // a header named in Scrub
	is.True(!strings.Contains(text, "X-Stainless"))             // the SDK's platform headers are left out

	t.Run("replay", func(t *testing.T) {
		opts := opts
		opts.Mode = cassette.Replay
		rec := cassette.New(t, path, &opts)
		c := openai.New(openaisdk.WithBaseURL("http://127.0.0.1:1"), openaisdk.WithAPIKey("another key"),
			openaisdk.WithHTTPClient(rec.Client()), openaisdk.WithMaxRetries(0)).WithModel("gpt-other-model")
		got, err := ask(t.Context(), c, true, providertest.Question)
		is.NoErr(err)
		is.Equal(got, providertest.Answer) // the model's name differs, but it is redacted
	})
}

// Without a cassette, replay fails the test and says how to record one.
func TestMissingCassette(t *testing.T) {
	is := is.New(t)
	c := &fatal{TB: t}
	func() {
		defer func() { _ = recover() }()
		cassette.New(c, filepath.Join(t.TempDir(), "none.txt"), &cassette.Options{Mode: cassette.Replay})
	}()
	is.True(strings.Contains(c.msg, "TYPESHIFT_RECORD=1")) // says how to record it
}

type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

// The environment switches recording.
func TestRecordingFromEnv(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		value string
		want  bool
	}{{"1", true}, {"true", true}, {"TRUE", true}, {"", false}, {"0", false}, {"no", false}} {
		t.Setenv(cassette.EnvRecord, tc.value)
		is.Equal(cassette.Recording(), tc.want) // the value tc.value
	}
	t.Setenv(cassette.EnvRecord, "1")
	rec := cassette.New(t, filepath.Join(t.TempDir(), "x.txt"), nil)
	is.Equal(rec.Mode(), cassette.Record)
	t.Setenv(cassette.EnvRecord, "")
	rec = cassette.New(t, filepath.Join(t.TempDir(), "y.txt"), &cassette.Options{Mode: cassette.Record})
	is.Equal(rec.Mode(), cassette.Record)
}
