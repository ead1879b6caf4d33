package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// step is one scripted model response, as a function of the request.
type step func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error)

// script is a chattest.Script that answers with the steps in order and records what it was asked. It streams
// each text in two deltas, its halves.
func script(steps ...step) *chattest.Script {
	s := chattest.NewScript().SplitText(halves)
	for _, st := range steps {
		s.ReplyFunc(func(_ context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			return st(msgs, opts)
		})
	}
	return s
}

// halves splits a text of more than one byte into its two halves.
func halves(text string) []string {
	if len(text) < 2 {
		return []string{text}
	}
	return []string{text[:len(text)/2], text[len(text)/2:]}
}

var oneUsage = chat.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}

// say answers with text.
func say(text string) step {
	return func([]chat.Message, *chat.Options) (*chat.Response, error) {
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}},
			Usage: oneUsage, FinishReason: chat.FinishStop}, nil
	}
}

// call answers with tool calls, given as "id name {args}" triples.
func call(calls ...chat.ToolCall) step {
	return func([]chat.Message, *chat.Options) (*chat.Response, error) {
		parts := make([]chat.Part, len(calls))
		for i, c := range calls {
			parts[i] = c
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: parts}},
			Usage: oneUsage, FinishReason: chat.FinishToolCalls}, nil
	}
}

func tc(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// tool builds a tool by hand.
func tool(name string, fn func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)) *toolset.Tool {
	return &toolset.Tool{
		Name: name, Description: "test tool " + name, ID: "test." + name,
		Schema: json.RawMessage(`{"type":"object"}`),
		Invoke: func(ctx context.Context, c *toolset.Call) (json.RawMessage, error) { return fn(ctx, c.Arguments) },
		State:  &toolset.State{},
	}
}

// echo returns its arguments.
func echo(name string) *toolset.Tool {
	return tool(name, func(_ context.Context, a json.RawMessage) (json.RawMessage, error) { return a, nil })
}

// failing always fails with msg.
func failing(name, msg string) *toolset.Tool {
	return tool(name, func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, fmt.Errorf("%s", msg) })
}

// decoding reads {"n": integer} with the tooljson decoder, as generated code does.
func decoding(name string) *toolset.Tool {
	return tool(name, func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		d := tooljson.NewDecoder(a)
		var n int64
		seen := false
		if d.Object() {
			for {
				key, ok := d.Field()
				if !ok {
					break
				}
				switch string(key) {
				case "n":
					n, seen = d.Int(64), true
				default:
					d.Unknown(key, "n")
				}
			}
			if !seen {
				d.Missing("n")
			}
		}
		d.End()
		if err := d.Err(); err != nil {
			return nil, err
		}
		return json.RawMessage(fmt.Sprint(n * 2)), nil
	})
}

func readOnly(t *toolset.Tool) *toolset.Tool          { t.ReadOnly = true; return t }
func needsApproval(t *toolset.Tool) *toolset.Tool     { t.RequiresApproval = true; return t }
func withID(t *toolset.Tool, id string) *toolset.Tool { t.ID = id; return t }

// plain is an agent without toolset uses.
type plain struct{ agent.Agent }

func (a *plain) Declare() {
	a.WithName("tester")
	a.WithInstructions("Be brief.")
	a.WithModel("test", "m1")
}

// host returns a host for the plain agent with these tools and the model.
func host(model chat.Client, cfg agent.Config, tools ...*toolset.Tool) *agent.Host {
	cfg.Client = model
	if len(tools) > 0 {
		cfg.Tools = append(cfg.Tools, toolset.List(tools))
	}
	h, err := agent.NewHost(&plain{}, cfg)
	if err != nil {
		panic(err)
	}
	return h
}

// results returns the tool results of msgs by call id.
func results(msgs []chat.Message) map[string]chat.ToolResult {
	out := map[string]chat.ToolResult{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}

// lastResults returns the tool results the model saw in its last call.
func lastResults(m *chattest.Script) map[string]chat.ToolResult {
	reqs := m.Requests()
	return results(reqs[len(reqs)-1].Messages)
}

func joined(ss []string) string { return strings.Join(ss, ",") }
