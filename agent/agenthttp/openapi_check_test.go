package agenthttp_test

import (
	"net/http"
	"testing"
)

// checkOpenAPI validates a request and its response against the OpenAPI document.
func checkOpenAPI(t testing.TB, r *http.Request, resp response) {}
