package agenta2a_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// nodeClient is the directory of the Node test project that holds the official A2A JavaScript client.
const nodeClient = "testdata/node"

// jsState is what the script prints: the tasks the client holds, the errors it met, and what its flow adds.
type jsState struct {
	Tasks     map[string]jsTask `json:"tasks"`
	Errors    []string          `json:"errors"`
	Card      *jsCard           `json:"card"`
	Cancelled *jsStatus         `json:"cancelled"`
}

type jsCard struct {
	Name            string   `json:"name"`
	Streaming       bool     `json:"streaming"`
	Skills          []string `json:"skills"`
	SecuritySchemes []string `json:"securitySchemes"`
	ProtocolVersion string   `json:"protocolVersion"`
}

type jsTask struct {
	ID        string                       `json:"id"`
	ContextID string                       `json:"contextId"`
	Status    jsStatus                     `json:"status"`
	History   []jsMessage                  `json:"history"`
	Artifacts map[string][]json.RawMessage `json:"artifacts"`
	Events    []string                     `json:"events"`
}

type jsStatus struct {
	State   string            `json:"state"`
	Message []json.RawMessage `json:"message"`
}

type jsMessage struct {
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

// node starts the script's flow against e as the tenant of token. Without Node or the project's packages the test
// is skipped, saying how to run it; under CI=true it fails instead.
func node(t *testing.T, e *env, token, flow string, args ...string) (*exec.Cmd, io.Reader, *bytes.Buffer) {
	cmd, stdout, stderr, _ := nodeIn(t, e, token, flow, args...)
	return cmd, stdout, stderr
}

// nodeIn is node with the script's stdin.
func nodeIn(t *testing.T, e *env, token, flow string, args ...string) (*exec.Cmd, io.Reader, *bytes.Buffer, io.WriteCloser) {
	t.Helper()
	how := "to run the tests with the official A2A client: install Node 20 or later, then run `npm ci` in agent/agenta2a/" + nodeClient
	bin, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeClient, "node_modules", "@a2a-js", "sdk"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; %s", err, how)
		}
		t.Skipf("%v; %s", err, how)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{"a2a.mjs", e.srv.URL + "/a2a", token, flow}, args...)...)
	cmd.Dir = nodeClient
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, &stderr, stdin
}

// runNode runs a flow to its end and returns the client's state.
func runNode(t *testing.T, e *env, token, flow string, args ...string) jsState {
	t.Helper()
	cmd, stdout, stderr := node(t, e, token, flow, args...)
	return nodeState(t, e, cmd, bufio.NewReader(stdout), stderr)
}

// nodeState reads the state the script prints last and waits for it to exit.
func nodeState(t *testing.T, e *env, cmd *exec.Cmd, stdout *bufio.Reader, stderr *bytes.Buffer) jsState {
	t.Helper()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node %s: %v\n%s\n%s\n%s", strings.Join(cmd.Args[1:], " "), err, rest, stderr.String(), e.logs.String())
	}
	lines := strings.Split(strings.TrimSpace(string(rest)), "\n")
	var st jsState
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil {
		t.Fatalf("node printed %s: %v\n%s", rest, err, stderr.String())
	}
	return st
}

// only returns the one task a flow's client holds.
func only(t *testing.T, st jsState) jsTask {
	t.Helper()
	if len(st.Tasks) != 1 {
		t.Fatalf("the client holds %d tasks: %+v", len(st.Tasks), st)
	}
	for _, tk := range st.Tasks {
		return tk
	}
	return jsTask{}
}

// storedAs reads the task from the store, through tasks/get, in the form the script prints it, and checks it
// against the stored conversation itself: its state, its answer and its open requests.
func (e *env) storedAs(t *testing.T, settingsToken, id string) jsTask {
	t.Helper()
	got, err := e.client(settingsToken).GetTask(context.Background(), &a2a.TaskQueryParams{ID: a2a.TaskID(id)})
	if err != nil {
		t.Fatalf("tasks/get %s: %v", id, err)
	}
	b, _ := json.Marshal(got)
	var raw struct {
		ID        string `json:"id"`
		ContextID string `json:"contextId"`
		Status    struct {
			State   string `json:"state"`
			Message *struct {
				Parts []map[string]any `json:"parts"`
			} `json:"message"`
		} `json:"status"`
		History []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"history"`
		Artifacts []struct {
			ArtifactID string           `json:"artifactId"`
			Parts      []map[string]any `json:"parts"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	plain := func(parts []map[string]any) []json.RawMessage {
		out := []json.RawMessage{}
		for _, p := range parts {
			var v any
			switch p["kind"] {
			case "text":
				v = map[string]any{"text": p["text"]}
			case "data":
				v = map[string]any{"data": p["data"]}
			case "file":
				f := p["file"].(map[string]any)
				if u, ok := f["uri"]; ok {
					v = map[string]any{"file": map[string]any{"mediaType": f["mimeType"], "url": u}}
				} else {
					v = map[string]any{"file": map[string]any{"mediaType": f["mimeType"], "bytes": f["bytes"]}}
				}
			}
			b, _ := json.Marshal(v)
			out = append(out, b)
		}
		return out
	}
	tk := jsTask{ID: raw.ID, ContextID: raw.ContextID, Status: jsStatus{State: raw.Status.State}, Artifacts: map[string][]json.RawMessage{}}
	if raw.Status.Message != nil {
		tk.Status.Message = plain(raw.Status.Message.Parts)
	}
	for _, m := range raw.History {
		tk.History = append(tk.History, jsMessage{Role: m.Role, Parts: plain(m.Parts)})
	}
	for _, a := range raw.Artifacts {
		tk.Artifacts[a.ArtifactID] = plain(a.Parts)
	}

	// The stored conversation itself agrees: its state, its last answer, its open requests.
	st, err := e.host.LoadConversation(context.Background(), tenantOf(settingsToken), raw.ContextID)
	if err != nil {
		t.Fatalf("loading %s: %v", raw.ContextID, err)
	}
	if (len(st.Pending) > 0) != (tk.Status.State == "input-required") {
		t.Fatalf("task %s is %s, the conversation has %d open requests", id, tk.Status.State, len(st.Pending))
	}
	if tk.Status.State == "completed" {
		var last string
		for i := len(st.Messages) - 1; i >= 0 && last == ""; i-- {
			if st.Messages[i].Role == chat.RoleAssistant {
				last = st.Messages[i].Text()
			}
		}
		want, _ := json.Marshal(map[string]string{"text": last})
		if len(tk.Artifacts["answer"]) != 1 || !bytes.Equal(tk.Artifacts["answer"][0], want) {
			t.Fatalf("the answer artifact %s is not the stored answer %s", tk.Artifacts["answer"], want)
		}
	}
	return tk
}

func tenantOf(token string) string {
	if token == tokenB {
		return tenantB
	}
	return tenantA
}

// sameTask compares what the client holds with what the store holds; events are the client's alone, and a stream's
// client builds no history.
func sameTask(t *testing.T, client, stored jsTask, withHistory bool) {
	t.Helper()
	client.Events = nil
	if !withHistory {
		client.History, stored.History = nil, nil
	}
	if d := cmp.Diff(stored, client); d != "" {
		t.Fatalf("the client's task differs from the stored one (-stored +client):\n%s", d)
	}
}

func TestOfficialClient(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		t.Run("card", func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, s, nil)
			st := runNode(t, e, tokenA, "card")
			is.Equal(st.Errors, []string{})
			is.Equal(*st.Card, jsCard{Name: "Desk", Streaming: true, Skills: []string{"close_ticket", "get_ticket", "search_tickets"},
				SecuritySchemes: []string{"bearer"}, ProtocolVersion: "0.3"})
		})
		t.Run("send", func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, s, nil)
			st := runNode(t, e, tokenA, "send")
			is.Equal(st.Errors, []string{})
			tk := only(t, st)
			is.Equal(tk.Status.State, "completed")
			sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), true)
		})
		t.Run("stream", func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, s, nil)
			st := runNode(t, e, tokenA, "stream")
			is.Equal(st.Errors, []string{})
			tk := only(t, st)
			is.Equal(tk.Status.State, "completed")
			is.Equal(tk.Events[0], "task")
			is.Equal(tk.Events[len(tk.Events)-1], "status:completed")
			sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), false)
		})
		for _, flow := range []string{"approve", "deny"} {
			t.Run(flow, func(t *testing.T) {
				is := is.New(t)
				e := newEnv(t, s, nil)
				st := runNode(t, e, tokenA, flow)
				is.Equal(st.Errors, []string{})
				tk := only(t, st)
				is.Equal(tk.Status.State, "completed")
				sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), true)
				is.Equal(e.closed(4711), flow == "approve")
			})
		}
		t.Run("resubscribe after a cut connection", func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, s, nil)
			cmd, stdout, stderr := node(t, e, tokenA, "resubscribe")
			<-e.model.waiting
			r := bufio.NewReader(stdout)
			line, err := r.ReadString('\n')
			is.NoErr(err)
			is.Equal(line, "resubscribed\n")
			e.releaseWaits()
			st := nodeState(t, e, cmd, r, stderr)
			is.Equal(st.Errors, []string{})
			tk := only(t, st)
			is.Equal(tk.Status.State, "completed")
			is.Equal(tk.Events[:3], []string{"task", "cut", "task"})
			sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), false)
		})
		t.Run("cancel", func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, s, nil)
			cmd, stdout, stderr, stdin := nodeIn(t, e, tokenA, "cancel")
			<-e.model.waiting // the run is under way
			_, err := stdin.Write([]byte("cancel\n"))
			is.NoErr(err)
			st := nodeState(t, e, cmd, bufio.NewReader(stdout), stderr)
			is.Equal(st.Errors, []string{})
			is.Equal(st.Cancelled.State, "canceled")
			tk := only(t, st)
			is.Equal(tk.Status.State, "canceled")
			sameTask(t, tk, e.storedAs(t, tokenA, tk.ID), false)
		})
	})
}

// TestOfficialClientAfterRestart reads a task on a server started after the one that ran it ended.
func TestOfficialClientAfterRestart(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		s := memory.New()
		restarted(t, s, s)
	})
	t.Run("postgres", func(t *testing.T) {
		s, another := openPostgresPair(t)
		restarted(t, s, another())
	})
}

func restarted(t *testing.T, before, after storage.Store) {
	is := is.New(t)
	e := newEnv(t, before, nil)
	sent := only(t, runNode(t, e, tokenA, "approve"))
	stored := e.storedAs(t, tokenA, sent.ID)
	e.srv.Close()

	e2 := newEnv(t, after, tickets.NewMemoryClient(tickets.SampleTickets()...))
	st := runNode(t, e2, tokenA, "get", sent.ID)
	is.Equal(st.Errors, []string{})
	sameTask(t, only(t, st), stored, true)
	sameTask(t, sent, stored, true)
}
