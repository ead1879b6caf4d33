package mcp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/toolset"
)

// chatty is a source with one tool that reports its progress and logs to the client.
var chatty = toolset.List{{Name: "chatty", Description: "Reports progress and logs.", ID: "test.chatty",
	Schema: json.RawMessage(`{"type":"object","properties":{}}`), ReadOnly: true, State: new(toolset.State),
	Invoke: func(ctx context.Context, c *toolset.Call) (json.RawMessage, error) {
		for i := 1; i <= 3; i++ {
			chat.ReportProgress(ctx, chat.Progress{Progress: float64(i), Total: 3, Message: "step"})
		}
		mcp.ClientLogger(ctx).InfoContext(ctx, "working", "items", 3)
		mcp.ClientLogger(ctx).DebugContext(ctx, "below the client's level")
		return json.RawMessage(`"done"`), nil
	}}}

// TestServeProgressAndLogging: a served tool's progress reports reach the client as notifications/progress with
// the request's token, and its logging reaches the client at the level the client chose.
func TestServeProgressAndLogging(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var progress []*sdk.ProgressNotificationParams
	var logs []*sdk.LoggingMessageParams
	cs := connectServed(t, chatty, mcp.Principal{SettingsID: "t"}, nil, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params)
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, r.Params)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	// The client chooses the level per request (the protocol's current form); older clients send
	// logging/setLevel once, which the session keeps.
	params := &sdk.CallToolParams{Name: "chatty", Arguments: map[string]any{}, Meta: sdk.Meta{sdk.MetaKeyLogLevel: "info"}}
	params.SetProgressToken("token-1")
	res, err := cs.CallTool(ctx, params)
	is.NoErr(err)
	is.True(!res.IsError)
	// The notifications went out before the result; the client handles them on a goroutine of their own.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		if len(progress) >= 3 && len(logs) >= 1 || time.Now().After(deadline) {
			break
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	defer mu.Unlock()
	is.Equal(len(progress), 3)
	for i, p := range progress {
		is.Equal(p.ProgressToken, "token-1")
		is.Equal(p.Progress, float64(i+1))
		is.Equal(p.Total, 3.0)
		is.Equal(p.Message, "step")
	}
	is.Equal(len(logs), 1) // the debug record is below the client's level
	is.Equal(string(logs[0].Level), "info")
	data, _ := json.Marshal(logs[0].Data)
	is.True(json.Valid(data))
	is.True(string(data) != "null")
}

// TestServeListShape: tools/list goes out as the principal's own list, never cached for others, and the server
// does not claim list-changed notifications it never sends.
func TestServeListShape(t *testing.T) {
	is := is.New(t)
	cs := connectServed(t, newServed().src, mcp.Principal{SettingsID: "t"}, nil, nil)
	res, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(res.CacheScope, "private")
	caps := cs.InitializeResult().Capabilities
	is.True(caps.Tools != nil)
	is.True(!caps.Tools.ListChanged)
	is.True(caps.Logging != nil)
}
