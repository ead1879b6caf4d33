package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
)

// TestRegisterByModel chooses the API per model: the Responses API for reasoning models, Chat Completions for
// the others, as the requests' paths show.
func TestRegisterByModel(t *testing.T) {
	tests := []struct {
		model, path string
		custom      func(string) bool
	}{
		{"gpt-5-mini", "/responses", nil},
		{"o4-mini", "/responses", nil},
		{"o3", "/responses", nil},
		{"gpt-4.1-mini", "/chat/completions", nil},
		{"gpt-4o", "/chat/completions", nil},
		{"o3mega-custom", "/chat/completions", nil},
		{"gpt-4.1-mini", "/responses", func(string) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Path
				http.Error(w, `{"error":{"message":"no","type":"invalid_request_error","param":null,"code":null}}`, http.StatusBadRequest)
			}))
			defer srv.Close()
			p := chat.NewProviders(nil)
			openai.RegisterByModel(p, tt.custom, option.WithBaseURL(srv.URL), option.WithAPIKey(testKey))
			c, err := p.Client(context.Background(), openai.ProviderName, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
			if got != tt.path {
				t.Errorf("%s went to %q, want %q", tt.model, got, tt.path)
			}
		})
	}
}
