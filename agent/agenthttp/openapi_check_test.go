package agenthttp_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// openAPI loads the handler's OpenAPI document and its router, once.
var openAPI = sync.OnceValues(func() (routers.Router, error) {
	// Event streams are checked as text: their events are the protocols' (see the stream tests).
	openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.PlainBodyDecoder)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(agenthttp.OpenAPI())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	doc.Servers = nil // the handler is mounted anywhere: match the paths alone
	return legacy.NewRouter(doc)
})

// checkOpenAPI validates a request of a test and the handler's response against the OpenAPI document: every
// response, and every request the handler accepted (a refused request is one the document does not allow).
func checkOpenAPI(t testing.TB, r *http.Request, body []byte, resp response) {
	t.Helper()
	router, err := openAPI()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	route, params, err := router.FindRoute(r)
	if err != nil {
		if resp.status == http.StatusNotFound || resp.status == http.StatusMethodNotAllowed || r.Method == http.MethodOptions {
			return // a route the API does not have
		}
		t.Fatalf("%s %s is not in the OpenAPI document: %v", r.Method, r.URL.Path, err)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus:   true,
		MultiError:              true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()},
	}
	in := &openapi3filter.RequestValidationInput{Request: r.Clone(context.Background()), PathParams: params, Route: route, Options: opts}
	in.Request.Body = io.NopCloser(bytes.NewReader(body))
	if resp.status < 400 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("the handler accepted %s %s, which the OpenAPI document does not allow: %v", r.Method, r.URL.Path, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.status, Header: resp.header,
		Body: io.NopCloser(bytes.NewReader(resp.body)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("the response %d to %s %s does not match the OpenAPI document: %v\n%s", resp.status, r.Method, r.URL.Path, err, resp.body)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	is := is.New(t)
	doc, err := openapi3.NewLoader().LoadFromData(agenthttp.OpenAPI())
	is.NoErr(err)
	is.True(doc.IsOpenAPI31OrLater())
	is.NoErr(doc.Validate(context.Background()))

	e := newEnv(t, memory.New())
	resp := e.do(req{method: "GET", path: "/openapi.json"})
	is.Equal(resp.status, http.StatusOK)
	is.Equal(resp.body, agenthttp.OpenAPI()) // served without authentication
}
