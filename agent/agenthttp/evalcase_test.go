package agenthttp_test

import (
	"context"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/eval/evalhttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// withEvalCases serves GET /conversations/{id}/eval-case.
func withEvalCases(_ *agent.Config, o *agenthttp.Options) { o.EvalCase = evalhttp.Case }

// GET /conversations/{id}/eval-case answers the case of the tenant's conversation as a file to save; a name that
// is no file name, a conversation whose last question is unanswered, another tenant's or a forged id do not.
func TestEvalCase(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s, withEvalCases)
		id := e.create(tokenA, "get 4711").ConversationID
		live := e.create(tokenA, "hello").ConversationID
		done := e.startWaiting(live, nil) // its last question, "wait", has no answer yet
		defer func() {
			close(e.model.release)
			<-done
		}()

		for _, c := range []struct {
			name    string
			path    string // %s is id
			token   string
			status  int
			problem string // the problem's name, for an error
			file    string // the file's name, for a case
			caseOf  string // the case's name
		}{
			{name: "named", path: "/conversations/%s/eval-case?name=get_ticket.v2", token: tokenA, status: 200, file: "get_ticket.v2.json", caseOf: "get_ticket.v2"},
			{name: "named after the conversation", path: "/conversations/%s/eval-case", token: tokenA, status: 200, file: id + ".json"},
			{name: "a name with a path", path: "/conversations/%s/eval-case?name=..%2Fevals%2Fx", token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "a hidden file", path: "/conversations/%s/eval-case?name=.x", token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "a name with a quote", path: "/conversations/%s/eval-case?name=a%22b", token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "an empty name", path: "/conversations/%s/eval-case?name=", token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "two names", path: "/conversations/%s/eval-case?name=a&name=b", token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "a long name", path: "/conversations/%s/eval-case?name=" + strings.Repeat("n", 101), token: tokenA, status: 422, problem: agenthttp.ProblemValidation},
			{name: "a name that is not text", path: "/conversations/%s/eval-case?name=%FF", token: tokenA, status: 400, problem: agenthttp.ProblemBadRequest},
			{name: "unanswered", path: "/conversations/" + live + "/eval-case", token: tokenA, status: 409, problem: agenthttp.ProblemNoTurn},
			{name: "another tenant's", path: "/conversations/%s/eval-case", token: tokenB, status: 404, problem: agenthttp.ProblemNotFound},
			{name: "a forged id with a path", path: "/conversations/..%2F" + tenantA + "%2F%s/eval-case", token: tokenA, status: 404, problem: agenthttp.ProblemNotFound},
			{name: "a forged id with a NUL", path: "/conversations/%s%00/eval-case", token: tokenA, status: 400, problem: agenthttp.ProblemBadRequest},
			{name: "unauthenticated", path: "/conversations/%s/eval-case", status: 401, problem: agenthttp.ProblemUnauthenticated},
		} {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				resp := e.do(req{method: "GET", path: strings.ReplaceAll(c.path, "%s", id), token: c.token})
				is.Equal(resp.status, c.status)
				if c.problem != "" {
					is.Equal(resp.problem(t).Type, agenthttp.ProblemTypePrefix+c.problem)
					is.Equal(resp.header.Get("Content-Disposition"), "")
					return
				}
				is.Equal(resp.header.Get("Content-Type"), "application/json")
				disposition, params, err := mime.ParseMediaType(resp.header.Get("Content-Disposition"))
				is.NoErr(err)
				is.Equal(disposition, "attachment")
				is.Equal(params["filename"], c.file)
				made, err := eval.ParseCase(resp.body)
				is.NoErr(err)
				is.Equal(made.Name, c.caseOf)
				is.Equal(made.SettingsID, tenantA) // the request's tenant, never a value of the request
				is.Equal(made.Text, "get 4711")
				is.Equal(made.Expect.Trajectory.Calls[0].String(), "get_ticket(number=4711)")
				is.True(strings.HasPrefix(made.Expect.Answer.Reference, "Done: "))
			})
		}

		// Another tenant's conversation answers exactly as one that does not exist, and the forged ids too.
		is := is.New(t)
		missing := e.do(req{method: "GET", path: "/conversations/no-such-conversation/eval-case", token: tokenB})
		other := e.do(req{method: "GET", path: "/conversations/" + id + "/eval-case", token: tokenB})
		read := e.do(req{method: "GET", path: "/conversations/" + id, token: tokenB})
		is.Equal(other.problem(t), missing.problem(t))
		is.Equal(other.problem(t), read.problem(t)) // as GET /conversations/{id} answers it
	})
}

// A handler without Options.EvalCase has no eval cases to give.
func TestEvalCaseNotServed(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())
	id := e.create(tokenA, "get 4711").ConversationID
	resp := e.do(req{method: "GET", path: "/conversations/" + id + "/eval-case", token: tokenA})
	is.Equal(resp.status, http.StatusNotFound)
	p := resp.problem(t)
	is.Equal(p.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemNotFound)
	is.Equal(p.Detail, "this server makes no eval cases")
}

// A case saved from the API is a case file: eval.Load reads it from a directory, and eval.RunCases runs it on a
// fresh host whose model answers as the conversation's did, and it passes: the earlier turn as history, the
// close that waited for approval, approved, and the answer.
func TestEvalCaseRoundTrip(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New(), withEvalCases)
	id := e.create(tokenA, "hello").ConversationID
	run := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "close 4711"}})
	is.Equal(run.status, http.StatusOK)
	var res runResult
	run.json(t, &res)
	is.Equal(len(res.Pending), 1)
	run = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
		body: map[string]any{"approvals": []map[string]any{{"request_id": res.Pending[0].ID, "approved": true}}}})
	is.Equal(run.status, http.StatusOK)

	resp := e.do(req{method: "GET", path: "/conversations/" + id + "/eval-case?name=close_approved", token: tokenA})
	is.Equal(resp.status, http.StatusOK)
	_, params, err := mime.ParseMediaType(resp.header.Get("Content-Disposition"))
	is.NoErr(err)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, params["filename"]), resp.body, 0o600))

	cases, err := eval.Load(os.DirFS(dir), ".")
	is.NoErr(err)
	is.Equal(len(cases), 1)
	c := cases[0]
	is.Equal(c.Name, "close_approved")
	is.Equal(c.Text, "close 4711")
	is.Equal(len(c.History), 2) // "hello" and its answer
	is.Equal(*c.Expect.Approvals, []string{"close_ticket"})
	is.True(c.Approve != nil && *c.Approve)

	closed := map[string]bool{}
	results := eval.RunCases(t, cases, func(t *testing.T, c *eval.Case) *agent.Host {
		tix := tickets.NewMemoryClient(tickets.SampleTickets()...)
		host, err := agent.NewHost(&desk{}, agent.Config{
			Toolsets: []toolset.Source{&tickets.Tickets{Client: tix}},
			Client:   chattest.FuncModel(newModel().respond),
			Store:    memory.New(),
			LeaseTTL: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tk, _, _ := tix.Get(context.Background(), 4711)
			closed[c.Name] = tk.Status == tickets.StatusClosed
		})
		return host
	}, nil)
	is.Equal(len(results), 1)
	is.True(results[0].Passed)
	is.True(closed["close_approved"]) // the case approved the close, and it ran
}
