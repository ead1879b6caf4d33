package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// step is one scripted model response.
type step func(msgs []chat.Message, opts *chat.Options) (*chat.Response, error)

// scripted is a chat.Client that answers with its steps in order and records what it was asked.
type scripted struct {
	mu    sync.Mutex
	steps []step
	// what each call saw
	msgs  [][]chat.Message
	tools [][]string
	instr []string
	opts  []*chat.Options
}

func script(steps ...step) *scripted { return &scripted{steps: steps} }

func (s *scripted) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	i := len(s.msgs)
	s.msgs = append(s.msgs, append([]chat.Message(nil), msgs...))
	var names []string
	for _, t := range opts.Tools {
		names = append(names, t.Name)
	}
	s.tools = append(s.tools, names)
	s.instr = append(s.instr, opts.Instructions)
	s.opts = append(s.opts, opts)
	s.mu.Unlock()
	if i >= len(s.steps) {
		return nil, fmt.Errorf("script has %d steps; call %d", len(s.steps), i+1)
	}
	return s.steps[i](msgs, opts)
}

// Stream yields the scripted response as a provider would: text in two deltas, each call whole, then usage.
func (s *scripted) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := s.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		for _, m := range resp.Messages {
			for _, p := range m.Parts {
				if t, ok := p.(chat.Text); ok && len(t.Text) > 1 {
					h := len(t.Text) / 2
					if !yield(chat.Update{Role: m.Role, Parts: []chat.Part{chat.Text{Text: t.Text[:h]}}}, nil) {
						return
					}
					p = chat.Text{Text: t.Text[h:]}
				}
				if !yield(chat.Update{Role: m.Role, Parts: []chat.Part{p}}, nil) {
					return
				}
			}
		}
		yield(chat.Update{Parts: []chat.Part{chat.UsagePart{Usage: resp.Usage}}, FinishReason: resp.FinishReason}, nil)
	}
}

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.msgs)
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
func (s *scripted) lastResults() map[string]chat.ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return results(s.msgs[len(s.msgs)-1])
}

func joined(ss []string) string { return strings.Join(ss, ",") }
