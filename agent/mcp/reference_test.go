package mcp_test

import (
	"context"
	"errors"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// everything starts the reference server-everything over stdio.
func everything(t *testing.T, opts *mcp.Options) (*mcp.Server, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(npmBin(t, "mcp-server-everything"), "stdio")
	srv, err := mcp.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, cmd
}

// sampler is a chat client that answers every request with one text and records what it was asked.
type sampler struct {
	mu     sync.Mutex
	answer string
	asked  []*chat.Options
	msgs   [][]chat.Message
}

func (s *sampler) Respond(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, opts)
	s.msgs = append(s.msgs, msgs)
	return &chat.Response{Model: "test-model", FinishReason: chat.FinishStop,
		Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: s.answer}}}}}, nil
}

func (s *sampler) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := s.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		yield(chat.Update{Role: chat.RoleAssistant, Parts: resp.Messages[0].Parts}, nil)
	}
}

func callText(t *testing.T, tools []*toolset.Tool, name, args string) (string, error) {
	t.Helper()
	res, err := byName(t, tools, name).Call(t.Context(), &toolset.Call{ID: "c1", Arguments: []byte(args)})
	return string(res), err
}

// TestEverythingTools checks what the reference server offers a client that opts into nothing: no sampling or
// elicitation tools (the server registers them only for clients that can answer), and no task-required tool.
func TestEverythingTools(t *testing.T) {
	is := is.New(t)
	srv, _ := everything(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	got := names(tools)
	for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
		is.True(strings.Contains(strings.Join(got, " "), want))
	}
	for _, tool := range got {
		is.True(tool != "simulate-research-query") // requires task-based execution: left out
		is.True(!strings.HasPrefix(tool, "trigger-sampling") && !strings.HasPrefix(tool, "trigger-elicitation"))
	}
	text, err := callText(t, tools, "echo", `{"message":"hi"}`)
	is.NoErr(err)
	is.True(strings.Contains(text, "hi"))
	_, err = callText(t, tools, "get-sum", `{"a":"one","b":2}`)
	var te *mcp.ToolError
	is.True(errors.As(err, &te)) // the server's validation error, for the model
}

// TestEverythingProgress streams a run over the reference server's long-running tool: its progress
// notifications reach the stream.
func TestEverythingProgress(t *testing.T) {
	is := is.New(t)
	srv, _ := everything(t, nil)
	m := &model{steps: [][]chat.Part{
		{toolCall("c1", "trigger-long-running-operation", `{"duration":0.3,"steps":3}`)},
		{chat.Text{Text: "done"}},
	}}
	h, err := agent.NewHost(&assistant{}, agent.Config{Client: m, Tools: []toolset.Source{srv}})
	is.NoErr(err)
	var got []chat.Progress
	for u, err := range h.RunStream(t.Context(), agent.Text("go")) {
		is.NoErr(err)
		if u.Progress != nil {
			got = append(got, *u.Progress)
		}
	}
	// The SDK handles notifications apart from responses, so the last report may come after the result, and be
	// dropped: the result says the same.
	is.True(len(got) >= 2 && len(got) <= 3)
	for i, p := range got {
		is.Equal(p, chat.Progress{CallID: "c1", Progress: float64(i + 1), Total: 3})
	}
	is.Equal(m.results()["c1"].Error, "")
}

// TestEverythingSampling lets the reference server sample through the host's client, within the host's bounds.
func TestEverythingSampling(t *testing.T) {
	tests := []struct {
		name    string
		allow   func(context.Context, *sdk.CreateMessageParams) error
		want    string
		isError bool
	}{
		{"answered", nil, "a short poem", false},
		{"refused by the policy", func(context.Context, *sdk.CreateMessageParams) error {
			return errors.New("this server may not sample")
		}, "this server may not sample", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			s := &sampler{answer: "a short poem"}
			srv, _ := everything(t, &mcp.Options{Sampling: &mcp.Sampling{Client: s, Model: "m", MaxTokens: 20, Allow: tt.allow}})
			tools, err := srv.Tools(t.Context(), nil)
			is.NoErr(err)
			text, err := callText(t, tools, "trigger-sampling-request", `{"prompt":"write a poem","maxTokens":500}`)
			if tt.isError {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), tt.want))
				is.Equal(len(s.asked), 0) // the model was not asked
				return
			}
			is.NoErr(err)
			is.True(strings.Contains(text, tt.want))
			is.Equal(len(s.asked), 1)
			is.Equal(*s.asked[0].MaxTokens, 20) // the host's cap, not the server's 500
			is.Equal(s.asked[0].Instructions, "You are a helpful test server.")
			is.True(strings.Contains(s.msgs[0][0].Text(), "write a poem"))
		})
	}
}

// TestEverythingElicitation answers the reference server's elicitation through a handler the host opts into.
func TestEverythingElicitation(t *testing.T) {
	is := is.New(t)
	asked := 0
	srv, _ := everything(t, &mcp.Options{Client: &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked++
			return &sdk.ElicitResult{Action: "decline"}, nil
		}}})
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	text, err := callText(t, tools, "trigger-elicitation-request", `{}`)
	is.NoErr(err)
	is.Equal(asked, 1)
	is.True(strings.Contains(text, "declined"))
}

// TestEverythingDiesMidCall kills the reference server in the middle of a long call: the model reads that the
// server stopped.
func TestEverythingDiesMidCall(t *testing.T) {
	is := is.New(t)
	srv, cmd := everything(t, nil)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	var once sync.Once
	ctx := chat.WithProgress(t.Context(), func(chat.Progress) {
		once.Do(func() { _ = cmd.Process.Kill() })
	})
	_, err = byName(t, tools, "trigger-long-running-operation").Call(ctx, &toolset.Call{ID: "c1",
		Arguments: []byte(`{"duration":30,"steps":30}`)})
	is.True(err != nil)
	if !strings.Contains(err.Error(), "stopped while tool \"trigger-long-running-operation\" ran") {
		t.Fatalf("the model reads %q", err)
	}
	tools, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 0)
}

// TestFilesystemServer reaches the reference filesystem server: reads inside the allowed directory, and the
// server's refusal outside it, which the model reads.
func TestFilesystemServer(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello from a"), 0o600))
	cmd := exec.Command(npmBin(t, "mcp-server-filesystem"), dir)
	srv, err := mcp.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, &mcp.Options{Name: "fs"})
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	read := byName(t, tools, "read_text_file")
	is.True(read.ReadOnly && !read.RequiresApproval)
	write := byName(t, tools, "write_file")
	is.True(write.RequiresApproval)

	text, err := callText(t, tools, "read_text_file", `{"path":"`+filepath.Join(dir, "a.txt")+`"}`)
	is.NoErr(err)
	is.True(strings.Contains(text, "hello from a"))
	_, err = callText(t, tools, "read_text_file", `{"path":"/etc/passwd"}`)
	var te *mcp.ToolError
	is.True(errors.As(err, &te))
	is.True(strings.Contains(strings.ToLower(te.Message), "denied") || strings.Contains(te.Message, "outside"))
}
