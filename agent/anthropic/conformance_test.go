package anthropic_test

import (
	"os"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

const testKey = "sk-ant-test-0123456789abcdef"

// TestConformance runs the provider suite over Messages API exchanges recorded in testdata/conformance, and
// against the real API when ANTHROPIC_API_KEY is set.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Provider{
		Name:             anthropic.ProviderName,
		Fixtures:         os.DirFS("testdata/conformance"),
		TemperatureField: "temperature",
		Refused:          &chat.File{MediaType: "image/tiff", Data: []byte("II*\x00"), Name: "scan.tiff"},
		New: func(t *testing.T, baseURL string) chat.Client {
			return anthropic.New(option.WithoutEnvironmentDefaults(), option.WithBaseURL(baseURL), option.WithAPIKey(testKey)).
				WithModel("claude-sonnet-4-5").WithThinking(2048)
		},
		Live: func(t *testing.T) chat.Client {
			if !anthropic.Available() {
				return nil
			}
			return anthropic.New().WithModel("claude-haiku-4-5")
		},
	})
}
