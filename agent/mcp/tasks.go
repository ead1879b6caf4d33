package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK (v1.8.0) has no task-based execution (SEP-1686) on its client side, and its Tool type drops the
// "execution" field that says a tool requires it. Such a tool fails on every ordinary call, so it must not be
// offered. taskTransport reads the field from the raw tools/list responses on the way in, for the transports
// whose connection can be wrapped without hiding what the SDK looks for in it: every one but streamable HTTP,
// where such a tool is offered and its call fails with the server's own message, which the model reads.

// taskTransport wraps a transport to note the tools that require task-based execution.
type taskTransport struct {
	sdk.Transport
	tasks *taskTools
}

func (t *taskTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, tasks: t.tasks, lists: make(map[string]bool)}, nil
}

// taskTools is the set of tools, by name, that the server said require task-based execution.
type taskTools struct {
	mu    sync.Mutex
	names map[string]bool
}

func (t *taskTools) required(name string) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[name]
}

func (t *taskTools) add(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = make(map[string]bool)
	}
	t.names[name] = true
}

type taskConn struct {
	sdk.Connection
	tasks *taskTools

	mu    sync.Mutex
	lists map[string]bool // ids of tools/list requests in flight
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/list" && r.ID.IsValid() {
		c.mu.Lock()
		c.lists[fmt.Sprint(r.ID.Raw())] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil && r.ID.IsValid() {
		key := fmt.Sprint(r.ID.Raw())
		c.mu.Lock()
		list := c.lists[key]
		delete(c.lists, key)
		c.mu.Unlock()
		if list && r.Error == nil {
			c.note(r.Result)
		}
	}
	return msg, err
}

// note records the tools of a tools/list result whose execution.taskSupport is "required".
func (c *taskConn) note(result json.RawMessage) {
	var res struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return // the SDK reports a malformed result itself
	}
	for _, t := range res.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			c.tasks.add(t.Name)
		}
	}
}
