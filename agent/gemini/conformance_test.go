package gemini_test

import (
	"os"
	"testing"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

const testKey = "AIzaSy-test-0123456789abcdef"

// newClient returns a client of the Gemini API at baseURL.
func newClient(t testing.TB, baseURL string) *gemini.Client {
	c, err := gemini.New(t.Context(), &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithModel("gemini-2.5-flash")
}

// TestConformance runs the provider suite over Gemini API exchanges recorded in testdata/conformance, and
// against the real API when GEMINI_API_KEY is set.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Provider{
		Name:             gemini.ProviderName,
		Fixtures:         os.DirFS("testdata/conformance"),
		TemperatureField: "generationConfig.temperature",
		Refused:          &chat.File{URL: "https://example.com/files/4711"},
		New:              func(t *testing.T, baseURL string) chat.Client { return newClient(t, baseURL) },
		Live: func(t *testing.T) chat.Client {
			if !gemini.Available() {
				return nil
			}
			c, err := gemini.New(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			return c.WithModel("gemini-2.5-flash")
		},
	})
}
