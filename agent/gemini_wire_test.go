package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// geminiServer answers generateContent calls with the given bodies in order (the last again when they run out)
// and keeps the request bodies.
type geminiServer struct {
	URL    string
	mu     sync.Mutex
	bodies []string
}

func newGeminiServer(t *testing.T, answers ...string) *geminiServer {
	s := &geminiServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		a := answers[min(len(s.bodies), len(answers))-1]
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *geminiServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func geminiClient(t *testing.T, url string) *gemini.Client {
	c, err := gemini.New(context.Background(), &genai.ClientConfig{APIKey: "AIza-test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: url}})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithModel("gemini-2.5-flash")
}

const geminiSignature = "Z2VtaW5pLXRob3VnaHQtc2lnbmF0dXJlLWZvci10aGUtdGVzdHMtMDAwMQ=="

// A thinking model's answer: a thought, then a call carrying its signature.
const geminiCall = `{"candidates":[{"content":{"parts":[{"text":"The user wants ticket 1.","thought":true},` +
	`{"functionCall":{"id":"fc_1","name":"get_ticket","args":{"number":1}},"thoughtSignature":"` + geminiSignature + `"}],"role":"model"},` +
	`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":8,"thoughtsTokenCount":30,"totalTokenCount":78},` +
	`"modelVersion":"gemini-2.5-flash","responseId":"r-1"}`

func geminiText(text string) string {
	return `{"candidates":[{"content":{"parts":[{"text":` + strconvQuote(text) + `}],"role":"model"},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":9,"totalTokenCount":69},"modelVersion":"gemini-2.5-flash","responseId":"r-2"}`
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestGeminiSignaturesSurviveTheStore runs the tool loop on Gemini's wire format with a stored conversation: the
// thought signature goes back on its call within the run, is stored, and goes back again when another process
// continues the conversation.
func TestGeminiSignaturesSurviveTheStore(t *testing.T) {
	stores(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		srv := newGeminiServer(t, geminiCall, geminiText("Ticket 1 is open."), geminiText("Nothing else is open."))
		run := func(text string) *agent.Result {
			h, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()},
				Client: geminiClient(t, srv.URL), Store: store})
			is.NoErr(err)
			res, err := h.Run(context.Background(), agent.Text(text), agent.SettingsID(tenant), agent.Conversation("g-1"))
			is.NoErr(err)
			return res
		}
		res := run("Is ticket 1 open?")
		is.Equal(res.Text(), "Ticket 1 is open.")
		reqs := srv.requests()
		is.Equal(len(reqs), 2)
		// The second request carries the call with its signature, then the function's response; not the thought.
		is.True(strings.Contains(reqs[1], `"thoughtSignature":"`+geminiSignature+`"`))
		is.True(strings.Contains(reqs[1], `"functionResponse":{"id":"fc_1","name":"get_ticket"`))
		is.True(!strings.Contains(reqs[1], "The user wants ticket 1."))

		res = run("Anything else?") // a new host: the history comes from the store
		is.Equal(res.Text(), "Nothing else is open.")
		reqs = srv.requests()
		is.Equal(len(reqs), 3)
		is.True(strings.Contains(reqs[2], `"thoughtSignature":"`+geminiSignature+`"`))
		is.True(strings.Index(reqs[2], `"thoughtSignature"`) < strings.Index(reqs[2], `"functionResponse"`))
	})
}

// TestFallbackAcrossProviders falls back from OpenAI to Gemini: each provider gets the tools in its own schema
// profile, and the run goes on with the same conversation.
func TestFallbackAcrossProviders(t *testing.T) {
	is := is.New(t)
	down := openaitest.NewServer(openaitest.Error(503, "server_error", "", "The engine is currently overloaded."))
	defer down.Close()
	gsrv := newGeminiServer(t, geminiCall, geminiText("Ticket 1 is open."))
	var providers chat.Providers
	providers.Register("openai", openai.Factory(option.WithBaseURL(down.URL), option.WithAPIKey("sk-test")))
	providers.Register("gemini", func(model string) (chat.Client, error) { return geminiClient(t, gsrv.URL).WithModel(model), nil })
	settings := agent.SettingsFunc(func(context.Context, string, string) (json.RawMessage, error) {
		return json.RawMessage(`{"fallback":[{"provider":"gemini","model":"gemini-2.5-pro"}]}`), nil
	})
	h, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Providers: &providers,
		Settings: settings, Retry: &chat.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("Is ticket 1 open?"), agent.SettingsID(tenant))
	is.NoErr(err)
	is.Equal(res.Text(), "Ticket 1 is open.")
	is.Equal(len(down.Requests()), 4) // two tries for each of the two rounds, then Gemini
	reqs := gsrv.requests()
	is.Equal(len(reqs), 2)
	is.True(strings.Contains(reqs[0], `"parametersJsonSchema"`))
	is.True(strings.Contains(reqs[1], `"thoughtSignature":"`+geminiSignature+`"`))
}
