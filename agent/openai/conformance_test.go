package openai_test

import (
	"os"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// TestConformance runs the provider suite over Chat Completions exchanges recorded in testdata/conformance, and
// against the real API when OPENAI_API_KEY is set.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Provider{
		Name:             openai.ProviderName,
		Fixtures:         os.DirFS("testdata/conformance"),
		TemperatureField: "temperature",
		Refused:          &chat.File{MediaType: "image/tiff", Data: []byte("II*\x00"), Name: "scan.tiff"},
		New: func(t *testing.T, baseURL string) chat.Client {
			return openai.New(option.WithBaseURL(baseURL), option.WithAPIKey(testKey), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
		},
		Live: func(t *testing.T) chat.Client {
			if !openai.Available() {
				return nil
			}
			return openai.New(option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
		},
	})
}

// TestConformanceResponses runs the provider suite over Responses API exchanges recorded in testdata/responses,
// and against the real API when OPENAI_API_KEY is set.
func TestConformanceResponses(t *testing.T) {
	providertest.Run(t, providertest.Provider{
		Name:             openai.ProviderName,
		Fixtures:         os.DirFS("testdata/responses"),
		TemperatureField: "temperature",
		Refused:          &chat.File{MediaType: "image/tiff", Data: []byte("II*\x00"), Name: "scan.tiff"},
		New: func(t *testing.T, baseURL string) chat.Client {
			return openai.NewResponses(option.WithBaseURL(baseURL), option.WithAPIKey(testKey)).WithModel("gpt-5-mini")
		},
		Live: func(t *testing.T) chat.Client {
			if !openai.Available() {
				return nil
			}
			return openai.NewResponses().WithModel("gpt-5-mini")
		},
	})
}
