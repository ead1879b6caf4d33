package gemini_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"cloud.google.com/go/auth"
	"github.com/matryer/is"
	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
)

type staticToken string

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer"}, nil
}

// TestVertex sends a request to Vertex AI through the SDK's own configuration: the Vertex path of the model,
// under the project and location, authorised by the credentials' token.
func TestVertex(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var path, authz string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		path, authz = r.URL.Path, r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(okBody))
	}))
	defer srv.Close()
	c, err := gemini.New(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: "acme-support", Location: "europe-west4",
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken("ya29.test-token")}),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	is.NoErr(err)
	resp, err := c.WithModel("gemini-2.5-flash").Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
	is.NoErr(err)
	is.Equal(resp.Messages[0].Text(), "OK")
	mu.Lock()
	defer mu.Unlock()
	is.Equal(path, "/v1beta1/projects/acme-support/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent")
	is.Equal(authz, "Bearer ya29.test-token")
}
