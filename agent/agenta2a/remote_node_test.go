package agenta2a_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// jsToken is the token the JavaScript server takes.
const jsToken = "js-secret"

// jsServer starts the official A2A JavaScript SDK's server (testdata/node/server.mjs) and returns its base URL.
// Without Node or the project's packages the test is skipped, saying how to run it; under CI=true it fails instead.
func jsServer(t *testing.T) string {
	t.Helper()
	how := "to run the tests with the official A2A server: install Node 20 or later, then run `npm ci` in agent/agenta2a/" + nodeClient
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "server.mjs", jsToken)
	cmd.Dir = nodeClient
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		cancel()
		if t.Failed() {
			t.Logf("the JavaScript server's stderr:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the JavaScript server did not start: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(line)
}

// The official JavaScript SDK as the server, called by a local agent: a streamed answer with its usage, an
// input-required turn surfaced to the local user and answered (approved and denied), and a cancellation when
// the local run's context ends.
func TestRemoteJavaScriptServer(t *testing.T) {
	base := jsServer(t)
	var usage []chat.Usage
	var cost []agent.Cost
	c := newCaller(t, base, &agenta2a.RemoteOptions{
		Authorize: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer "+jsToken); return nil },
		OnUsage: func(_ context.Context, _ *toolset.Call, u chat.Usage, c agent.Cost) {
			usage, cost = append(usage, u), append(cost, c)
		},
	})
	ctx := context.Background()

	t.Run("card", func(t *testing.T) {
		is := is.New(t)
		card := c.remote.Card()
		is.Equal(card.Name, "Helper")
		is.True(card.Capabilities.Streaming)
		is.Equal(c.remote.Tools()[0].Name, "ask_helper")
		is.True(strings.Contains(c.remote.Tools()[0].Description, "Deletes a file, asking first"))
	})

	t.Run("stream", func(t *testing.T) {
		is := is.New(t)
		res, err := c.run(ctx, "js-stream", agent.Text("ask stream hello world"))
		is.NoErr(err)
		is.Equal(res.Text(), `answer: "Echo: hello world"`) // three chunks, put together
		is.Equal(usage, []chat.Usage{{InputTokens: 11, OutputTokens: 5, TotalTokens: 16}})
		is.Equal(res.Usage, chat.Usage{InputTokens: 211, OutputTokens: 5, TotalTokens: 216}) // two model calls and the remote's
		is.Equal(cost, []agent.Cost{{Nanos: 2_000_000, Currency: "USD"}})
	})

	for _, tt := range []struct {
		name, conv string
		answer     agent.RunOption
		want       string
	}{
		{"approved", "js-approve", nil, "Deleted notes.txt."},
		{"denied", "js-deny", agent.Reject("", "it is still needed"), "Kept notes.txt: it is still needed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res, err := c.run(ctx, tt.conv, agent.Text("ask delete notes.txt"))
			is.NoErr(err)
			is.True(strings.Contains(res.Text(), "May I delete notes.txt?")) // the model is told what waits
			req := c.surfaced(t, tt.conv)
			is.True(strings.Contains(string(req.Call.Arguments), "May I delete notes.txt?")) // the user sees the question
			answer := agent.Approve(req.ID)
			if tt.answer != nil {
				answer = agent.Reject(req.ID, "it is still needed")
			}
			res, err = c.run(ctx, tt.conv, answer)
			is.NoErr(err)
			if tt.name == "approved" {
				is.True(strings.Contains(res.Text(), tt.want)) // the remote's answer, after the approval
				return
			}
			// Denied: the model reads the rejection; the remote task ends with the reason passed on.
			is.True(strings.Contains(res.Text(), "it is still needed"))
			var answers []string
			resp, err := http.Get(base + "/_test/answers")
			is.NoErr(err)
			is.NoErr(json.NewDecoder(resp.Body).Decode(&answers))
			resp.Body.Close()
			is.True(slices.Contains(answers, tt.want))
		})
	}

	t.Run("cancel", func(t *testing.T) {
		is := is.New(t)
		ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		_, _ = c.run(ctx, "js-cancel", agent.Text("ask slow"))
		var ids []string
		for deadline := time.Now().Add(10 * time.Second); len(ids) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			resp, err := http.Get(base + "/_test/cancelled")
			is.NoErr(err)
			is.NoErr(json.NewDecoder(resp.Body).Decode(&ids))
			resp.Body.Close()
		}
		is.Equal(len(ids), 1) // the remote task was cancelled
		is.True(!slices.Contains(ids, ""))
	})
}
