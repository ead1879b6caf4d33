package providertest_test

import (
	"os"
	"testing"

	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	openaioption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// replayers are the library's three native providers, each against the server that plays a recording.
var replayers = []providertest.Replayer{
	{Name: anthropic.ProviderName, Wire: providertest.Anthropic,
		New: func(t testing.TB, baseURL string, _ providertest.Replay) chat.Client {
			return anthropic.New(anthropicoption.WithBaseURL(baseURL), anthropicoption.WithAPIKey("test"), anthropicoption.WithMaxRetries(0))
		}},
	{Name: gemini.ProviderName, Wire: providertest.Gemini,
		New: func(t testing.TB, baseURL string, _ providertest.Replay) chat.Client {
			c, err := gemini.New(t.Context(), &genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
	{Name: openai.ProviderName, Wire: providertest.Responses,
		New: func(t testing.TB, baseURL string, rp providertest.Replay) chat.Client {
			return openai.NewResponses(openaioption.WithBaseURL(baseURL+"/v1/"), openaioption.WithAPIKey("test"),
				openaioption.WithMaxRetries(0)).WithStrictTools(rp.StrictTools)
		}},
	{Name: openai.ProviderName, Wire: providertest.Chat,
		New: func(t testing.TB, baseURL string, rp providertest.Replay) chat.Client {
			return openai.New(openaioption.WithBaseURL(baseURL+"/v1/"), openaioption.WithAPIKey("test"),
				openaioption.WithMaxRetries(0)).WithStrictTools(rp.StrictTools)
		}},
}

// TestReplay replays the real exchanges the suite holds (testdata/recorded/*/PROVENANCE.md) through the
// library's providers.
func TestReplay(t *testing.T) {
	for _, r := range replayers {
		t.Run(string(r.Wire), func(t *testing.T) {
			replays, err := providertest.Recorded(r.Wire)
			if err != nil {
				t.Fatal(err)
			}
			if len(replays) < 8 {
				t.Errorf("%d recordings of %s; the suite holds at least 8 of each API", len(replays), r.Wire)
			}
			providertest.RunReplays(t, r, replays)
		})
	}
}

// TestProvenance checks that each recording is the file its project made, with its source and licence.
func TestProvenance(t *testing.T) {
	for _, dir := range []string{"anthropic", "gemini", "openai", "openai-chat"} {
		t.Run(dir, func(t *testing.T) { providertest.CheckProvenance(t, os.DirFS("testdata/recorded/"+dir)) })
	}
}
