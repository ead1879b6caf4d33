package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// typeshift eval runs a suite with go test, writes its results, and, run again against them after a change that
// breaks a case, names the case, the score that fell and by how much, and fails; compare says the same of the
// two files, and the other way round reports an improvement and succeeds.
func TestEvalRunAndCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	is := is.New(t)
	dir := t.TempDir()
	base, next, junitFile := filepath.Join(dir, "base.json"), filepath.Join(dir, "next.json"), filepath.Join(dir, "r.xml")
	suite := "./testdata/evalsuite"

	t.Setenv("EVALSUITE_ANSWER", "hello and goodbye")
	var out, errOut bytes.Buffer
	err := evalCommand(t.Context(), []string{"-o", base, "-junit", junitFile, suite}, nil, &out, &errOut)
	is.NoErr(err)
	is.Equal(out.String(), "2 cases, 2 passed, 0 failed\n")
	rs, err := readResults(base)
	is.NoErr(err)
	is.Equal(len(rs), 2)
	is.Equal(eval.CaseName(rs[0].Package, rs[0].Suite, rs[0].Case), "cmd/typeshift/testdata/evalsuite/TestEvals/goodbye")
	xml, err := os.ReadFile(junitFile)
	is.NoErr(err)
	is.True(strings.Contains(string(xml), `<testsuite name="cmd/typeshift/testdata/evalsuite/TestEvals" tests="2" failures="0">`))

	t.Setenv("EVALSUITE_ANSWER", "hello")
	out.Reset()
	err = evalCommand(t.Context(), []string{"-baseline", base, "-o", next, suite}, nil, &out, &errOut)
	is.True(errors.Is(err, errReported)) // a regression: exit status 1
	is.True(strings.Contains(out.String(), "2 cases, 1 passed, 1 failed\nagainst the baseline: 1 regressed, 0 improved\n"))
	is.True(strings.Contains(out.String(), "cmd/typeshift/testdata/evalsuite/TestEvals/goodbye  pass  FAIL  regressed  response_match_score 1.00→0.00 (-1.00); response_match_score 0.00 < 1.00"))
	is.True(!strings.Contains(out.String(), "/TestEvals/hello")) // unchanged

	out.Reset()
	err = evalCommand(t.Context(), []string{"compare", base, next}, nil, &out, &errOut)
	is.True(errors.Is(err, errReported))
	is.True(strings.Contains(out.String(), "regressed"))
	out.Reset()
	is.NoErr(evalCommand(t.Context(), []string{"compare", next, base}, nil, &out, &errOut))
	is.True(strings.Contains(out.String(), "against the baseline: 0 regressed, 1 improved"))

	// Without a baseline, a failing case fails the command too.
	out.Reset()
	err = evalCommand(t.Context(), []string{suite}, nil, &out, &errOut)
	is.True(errors.Is(err, errReported))
	is.True(strings.Contains(out.String(), "cmd/typeshift/testdata/evalsuite/TestEvals/goodbye  FAIL  response_match_score 0.00 < 1.00: the answer does not contain \"goodbye\""))

	// A -run that matches no suite is an error that says so.
	err = evalCommand(t.Context(), []string{"-run", "TestNothing", suite}, nil, &out, &errOut)
	is.True(err != nil && strings.Contains(err.Error(), "runs an eval suite"))
}

func TestEvalCompareRefuses(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	is.NoErr(os.WriteFile(bad, []byte(`{"case":"a"}`), 0o644))
	var out, errOut bytes.Buffer
	err := evalCommand(t.Context(), []string{"compare", bad}, nil, &out, &errOut)
	is.True(err != nil && strings.Contains(err.Error(), "two result files"))
	err = evalCommand(t.Context(), []string{"compare", bad, bad}, nil, &out, &errOut)
	is.True(err != nil && strings.Contains(err.Error(), "bad.json")) // names the file that is not results
	err = evalCommand(t.Context(), []string{"-k", "3"}, nil, &out, &errOut)
	is.True(err != nil && strings.Contains(err.Error(), "-k needs -live"))
}

// typeshift eval case turns a run's messages into a case whose expectations are the calls made and the answer.
func TestEvalCase(t *testing.T) {
	is := is.New(t)
	conversation := `{"conversation_id":"c-1","messages":[
		{"role":"user","parts":[{"type":"text","text":"Is ticket 4711 open?"}]},
		{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}}]},
		{"role":"tool","parts":[{"type":"tool_result","call_id":"call_1","result":{"number":4711,"status":"open"}}]},
		{"role":"assistant","parts":[{"type":"text","text":"Ticket 4711 is open."}]}
	]}`
	var out, errOut bytes.Buffer
	is.NoErr(evalCommand(t.Context(), []string{"case", "-name", "open", "-settings-id", "tenant-42"}, strings.NewReader(conversation), &out, &errOut))
	c, err := eval.ParseCase(out.Bytes())
	is.NoErr(err)
	is.Equal(c.Name, "open")
	is.Equal(c.SettingsID, "tenant-42")
	is.Equal(c.Text, "Is ticket 4711 open?")
	is.Equal(c.Expect.Trajectory.Calls[0].String(), "get_ticket(number=4711)")
	is.Equal(c.Expect.Answer.Reference, "Ticket 4711 is open.")
	is.Equal(c.Thresholds[eval.ScoreAnswer], 0.8)

	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", `hello`, "not JSON messages"},
		{"no messages", `{"conversation_id":"c-1"}`, `no "messages"`},
		{"bad entry", `{"entries":[{"type":"input","data":{"role":7}}]}`, "entry 1 (input)"},
		{"no user turn", `[{"role":"assistant","parts":[{"type":"text","text":"Hi"}]}]`, "no user message with text"},
		{"huge", `[` + strings.Repeat(" ", maxConversation) + `]`, "larger than 64 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			err := evalCommand(t.Context(), []string{"case"}, strings.NewReader(tc.in), &out, &errOut)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want))
		})
	}
}

// A conversation as the HTTP API returns it (GET /conversations/{id}, under its tenant's wall) becomes a case:
// the approval it waited on, the close it made once approved, and the answer.
func TestEvalCaseFromHTTPConversation(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	host, err := agent.NewHost(&closer{}, agent.Config{
		Store: store,
		Client: chattest.NewScript(
			chattest.Calls(chattest.Call("call_1", "close_ticket", `{"number":4711,"reason":"Fixed."}`)),
			chattest.Text("Ticket 4711 is closed.")),
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
	})
	is.NoErr(err)
	api, err := agenthttp.New([]*agent.Host{host}, agenthttp.Options{Store: store,
		Authenticate: func(r *http.Request) (agenthttp.Principal, error) {
			return agenthttp.Principal{SettingsID: r.Header.Get("X-Tenant")}, nil
		}})
	is.NoErr(err)
	srv := httptest.NewServer(api)
	defer srv.Close()
	do := func(method, path, tenant, body string) (int, []byte) {
		r, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Tenant", tenant)
		resp, err := http.DefaultClient.Do(r)
		is.NoErr(err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, body := do("POST", "/conversations", "tenant-42", `{"text":"Please close ticket 4711: fixed."}`)
	is.Equal(status, http.StatusCreated)
	var run struct {
		ID      string `json:"conversation_id"`
		Pending []struct {
			ID string `json:"id"`
		} `json:"pending"`
	}
	is.NoErr(json.Unmarshal(body, &run))
	status, _ = do("POST", "/conversations/"+run.ID+"/runs", "tenant-42", `{"approvals":[{"request_id":"`+run.Pending[0].ID+`","approved":true}]}`)
	is.Equal(status, http.StatusOK)

	status, _ = do("GET", "/conversations/"+run.ID, "tenant-43", "")
	is.Equal(status, http.StatusNotFound) // another tenant's conversation is not there to export
	status, conversation := do("GET", "/conversations/"+run.ID, "tenant-42", "")
	is.Equal(status, http.StatusOK)

	var out, errOut bytes.Buffer
	is.NoErr(evalCommand(t.Context(), []string{"case", "-settings-id", "tenant-42"}, bytes.NewReader(conversation), &out, &errOut))
	c, err := eval.ParseCase(out.Bytes())
	is.NoErr(err)
	is.Equal(c.Text, "Please close ticket 4711: fixed.")
	is.Equal(c.Expect.Trajectory.Calls[0].String(), `close_ticket(number=4711, reason="Fixed.")`)
	is.Equal(*c.Expect.Approvals, []string{"close_ticket"})
	is.True(c.Approve != nil && *c.Approve)
	is.Equal(c.Expect.Answer.Reference, "Ticket 4711 is closed.")
}

// closer is an agent with the tickets' tools.
type closer struct{ agent.Agent }

func (a *closer) Declare() { agent.Use[*tickets.Tickets](a) }

func (a *closer) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Closer", Uses: []agent.UseDeclaration{{Index: 0}}}
}
