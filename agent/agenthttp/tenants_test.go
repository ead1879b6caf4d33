package agenthttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
)

// TestOtherTenant tries every resource with another tenant's conversation id: each answers exactly as for an id
// that does not exist, and nothing of the other tenant changes.
func TestOtherTenant(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s, withEvalCases)
		res := e.create(tokenA, "close 4711") // tenant A's conversation, with an open request
		id, request := res.ConversationID, res.Pending[0].ID
		entries := e.entries(tenantA, id)

		// A live run of tenant A on a second conversation, so that steering has a run to reach.
		live := e.create(tokenA, "hello").ConversationID
		done := e.startWaiting(live, nil)

		for _, c := range []struct {
			name   string
			method string
			path   string // %s is the conversation id
			body   any
			header map[string]string
			conv   string
		}{
			{name: "read", method: "GET", path: "/conversations/%s", conv: id},
			{name: "delete", method: "DELETE", path: "/conversations/%s", conv: id},
			{name: "run", method: "POST", path: "/conversations/%s/runs", body: map[string]any{"text": "close 4711"}, conv: id},
			{name: "approval answer", method: "POST", path: "/conversations/%s/runs",
				body: map[string]any{"approvals": []map[string]any{{"request_id": request, "approved": true}}}, conv: id},
			{name: "run as events", method: "POST", path: "/conversations/%s/runs", body: map[string]any{"text": "hi"},
				header: map[string]string{"Accept": "text/event-stream"}, conv: id},
			{name: "steering a live run", method: "POST", path: "/conversations/%s/steering", body: map[string]any{"text": "stop"}, conv: live},
			{name: "steering", method: "POST", path: "/conversations/%s/steering", body: map[string]any{"text": "stop"}, conv: id},
			{name: "watch", method: "GET", path: "/conversations/%s/events", conv: live},
			{name: "eval case", method: "GET", path: "/conversations/%s/eval-case", conv: id},
		} {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				other := e.do(req{method: c.method, path: strings.ReplaceAll(c.path, "%s", c.conv), token: tokenB, body: c.body, header: c.header, timeout: 5 * time.Second})
				missing := e.do(req{method: c.method, path: strings.ReplaceAll(c.path, "%s", "no-such-conversation"), token: tokenB, body: c.body, header: c.header, timeout: 5 * time.Second})
				is.Equal(other.status, http.StatusNotFound)
				is.Equal(other.problem(t), missing.problem(t))
				is.Equal(other.status, missing.status)
			})
		}

		is := is.New(t)
		is.Equal(e.entries(tenantA, id), entries) // nothing of tenant A changed
		is.Equal(e.entries(tenantB, id), 0)       // and nothing was made for B
		tk, _, _ := e.desk.Get(context.Background(), 4711)
		is.Equal(tk.Status, tickets.StatusOpen) // B's approval ran nothing

		list := e.do(req{method: "GET", path: "/conversations", token: tokenB})
		is.Equal(string(list.body), "{\"conversations\":[]}\n")

		close(e.model.release)
		is.Equal((<-done).status, http.StatusOK)
		// A's own request is still open and answerable by A.
		resp := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
			body: map[string]any{"approvals": []map[string]any{{"request_id": request, "approved": true}}}})
		is.Equal(resp.status, http.StatusOK)
		tk, _, _ = e.desk.Get(context.Background(), 4711)
		is.Equal(tk.Status, tickets.StatusClosed)
	})
}

func TestOtherTenantSettings(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		put := e.do(req{method: "PUT", path: "/agents/Desk/settings", token: tokenA, body: map[string]any{"max_iterations": 5},
			header: map[string]string{"If-None-Match": "*"}})
		is.Equal(put.status, http.StatusCreated)
		tag := put.header.Get("ETag")

		get := e.do(req{method: "GET", path: "/agents/Desk/settings", token: tokenB})
		is.Equal(get.status, http.StatusNotFound)
		is.Equal(get.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemNotFound)
		del := e.do(req{method: "DELETE", path: "/agents/Desk/settings", token: tokenB, header: map[string]string{"If-Match": tag}})
		is.Equal(del.status, http.StatusNotFound)
		// A's ETag means nothing to B's settings: there is no revision 1 of them.
		over := e.do(req{method: "PUT", path: "/agents/Desk/settings", token: tokenB, body: map[string]any{"max_iterations": 1},
			header: map[string]string{"If-Match": tag}})
		is.Equal(over.status, http.StatusPreconditionFailed)

		doc, err := s.GetSettings(context.Background(), tenantA, "Desk")
		is.NoErr(err)
		is.Equal(doc.Revision, int64(1))
		is.Equal(strings.ReplaceAll(string(doc.Data), " ", ""), `{"max_iterations":5}`)
		_, err = s.GetSettings(context.Background(), tenantB, "Desk")
		is.True(err != nil)
	})
}
