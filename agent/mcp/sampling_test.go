package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestSamplingBounds checks that sampling is answered only while a tool call is in flight, and at most
// MaxRequests times per call.
func TestSamplingBounds(t *testing.T) {
	is := is.New(t)
	var session *sdk.ServerSession
	ask := func(ctx context.Context, ss *sdk.ServerSession) error {
		_, err := ss.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 10,
			Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}})
		return err
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "v1"},
		&sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	sdk.AddTool(server, &sdk.Tool{Name: "ask", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, map[string]any, error) {
			var answered, refused int
			for range 3 {
				err := ask(ctx, req.Session)
				switch {
				case err == nil:
					answered++
				case strings.Contains(err.Error(), "at most 2 sampling requests per tool call"):
					refused++
				default:
					return nil, nil, err
				}
			}
			return nil, map[string]any{"answered": answered, "refused": refused}, nil
		})
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), serverEnd, nil)
	is.NoErr(err)
	session = ss
	t.Cleanup(func() { _ = ss.Close() })
	s := &sampler{answer: "hello"}
	srv, err := mcp.Connect(t.Context(), clientEnd, &mcp.Options{Sampling: &mcp.Sampling{Client: s, MaxRequests: 2}})
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })

	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	for range 2 { // the budget is per call: the second call has its own
		res, err := byName(t, tools, "ask").Call(t.Context(), &toolset.Call{})
		is.NoErr(err)
		is.Equal(string(res), `{"answered":2,"refused":1}`)
	}
	is.Equal(len(s.asked), 4)

	err = ask(t.Context(), session) // no call in flight
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "only while one runs"))
	is.Equal(len(s.asked), 4)
}

// TestSamplingNotOffered checks that a client without Options.Sampling refuses a server's sampling request.
func TestSamplingNotOffered(t *testing.T) {
	is := is.New(t)
	server := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "v1"},
		&sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), serverEnd, nil)
	is.NoErr(err)
	t.Cleanup(func() { _ = ss.Close() })
	srv, err := mcp.Connect(t.Context(), clientEnd, nil)
	is.NoErr(err)
	t.Cleanup(func() { _ = srv.Close() })
	_, err = ss.CreateMessage(t.Context(), &sdk.CreateMessageParams{MaxTokens: 10,
		Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}})
	is.True(err != nil)
	is.True(!errors.Is(err, context.Canceled))
	is.True(strings.Contains(err.Error(), "sampling")) // the SDK says the client does not support it
}
