package agenthttp_test

import (
	"net/http"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/storage"
)

func TestSettings(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		path := "/agents/Desk/settings"
		put := func(body any, header map[string]string) response {
			return e.do(req{method: "PUT", path: path, token: tokenA, body: body, header: header})
		}
		typ := func(r response) string { return r.problem(t).Type[len(agenthttp.ProblemTypePrefix):] }

		resp := e.do(req{method: "GET", path: path, token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)

		resp = put(map[string]any{"model": "desk-2"}, nil)
		is.Equal(resp.status, http.StatusPreconditionRequired)
		is.Equal(typ(resp), agenthttp.ProblemPreconditionRequired)

		resp = put(map[string]any{"model": "desk-2", "tools": map[string]any{"search_tickets": map[string]any{"limit": 5}}},
			map[string]string{"If-None-Match": "*"})
		is.Equal(resp.status, http.StatusCreated)
		is.Equal(resp.header.Get("ETag"), `"1"`)

		resp = put(map[string]any{"model": "desk-3"}, map[string]string{"If-None-Match": "*"})
		is.Equal(resp.status, http.StatusPreconditionFailed) // it exists now

		resp = e.do(req{method: "GET", path: path, token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		is.Equal(resp.header.Get("ETag"), `"1"`)
		var doc struct {
			Kind     string         `json:"kind"`
			Revision int64          `json:"revision"`
			Data     map[string]any `json:"data"`
		}
		resp.json(t, &doc)
		is.Equal(doc.Kind, "Desk")
		is.Equal(doc.Data["model"], "desk-2")

		// Faults against the schema, each with its JSON pointer; nothing is written.
		resp = put(map[string]any{"temperature": 0.5, "max_iterations": 0, "tools": map[string]any{"search_tickets": map[string]any{"limit": "x"}}},
			map[string]string{"If-Match": `"1"`})
		is.Equal(resp.status, http.StatusUnprocessableEntity)
		p := resp.problem(t)
		is.Equal(p.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemValidation)
		pointers := map[string]bool{}
		for _, f := range p.Errors {
			pointers[f.Pointer] = true
		}
		is.True(pointers["/max_iterations"])
		is.True(pointers["/tools/search_tickets/limit"])
		is.True(pointers[""]) // temperature is not configurable: an unknown property of the document

		for _, bad := range []struct {
			name   string
			body   string
			status int
		}{
			{"malformed", `{"model":`, 400},
			{"two values", `{}{}`, 400},
			{"not JSON", `model=x`, 400},
		} {
			resp = e.do(req{method: "PUT", path: path, token: tokenA, body: bad.body, header: map[string]string{"If-Match": `"1"`}})
			is.Equal(resp.status, bad.status) // bad.name
		}

		resp = put(map[string]any{"model": "desk-3"}, map[string]string{"If-Match": `"7"`})
		is.Equal(resp.status, http.StatusPreconditionFailed)
		is.Equal(typ(resp), agenthttp.ProblemPreconditionFailed)
		resp = put(map[string]any{"model": "desk-3"}, map[string]string{"If-Match": `W/"1"`})
		is.Equal(resp.status, http.StatusPreconditionFailed)

		resp = put(map[string]any{"model": "desk-3"}, map[string]string{"If-Match": `"1"`})
		is.Equal(resp.status, http.StatusOK)
		is.Equal(resp.header.Get("ETag"), `"2"`)
		resp = put(map[string]any{"model": "desk-4"}, map[string]string{"If-Match": `"1"`})
		is.Equal(resp.status, http.StatusPreconditionFailed) // a stale write

		resp = e.do(req{method: "DELETE", path: path, token: tokenA})
		is.Equal(resp.status, http.StatusPreconditionRequired)
		resp = e.do(req{method: "DELETE", path: path, token: tokenA, header: map[string]string{"If-Match": `"1"`}})
		is.Equal(resp.status, http.StatusPreconditionFailed)
		resp = e.do(req{method: "DELETE", path: path, token: tokenA, header: map[string]string{"If-Match": `"2"`}})
		is.Equal(resp.status, http.StatusNoContent)
		resp = e.do(req{method: "GET", path: path, token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)

		resp = e.do(req{method: "GET", path: "/agents/Nobody/settings", token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)
		is.Equal(typ(resp), agenthttp.ProblemUnknownAgent)
	})
}
