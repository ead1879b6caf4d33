package chattest

import (
	"context"
	"fmt"
	"hash/fnv"
	"iter"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// TestModelOptions tune a [TestModel]. The zero value calls every offered tool, seeds with 0 and summarises the
// results.
type TestModelOptions struct {
	// Seed makes the generated arguments: the same seed gives the same arguments for the same schema.
	Seed int64
	// Tools names the tools to call. Nil calls every offered tool; an empty non-nil slice calls none.
	Tools []string
	// Text, when set, is the final answer instead of the summary of the tools' results.
	Text string
	// Model is the model name the responses report (default "test-model").
	Model string
}

// TestModel is an offline [chat.Client] in the manner of a scripted model that needs no script: when the
// conversation does not end with tool results, it calls each offered tool once (or the ones the options name),
// with arguments built from the tool's schema; when it does, it answers with text reporting what each tool
// returned. With no tools to call it answers at once. It is safe for concurrent use.
type TestModel struct {
	opts TestModelOptions
}

// NewTestModel returns a test model. A nil opts is the zero value.
func NewTestModel(opts *TestModelOptions) *TestModel {
	m := &TestModel{}
	if opts != nil {
		m.opts = *opts
		m.opts.Tools = slices.Clone(opts.Tools)
	}
	if m.opts.Model == "" {
		m.opts.Model = "test-model"
	}
	return m
}

// Respond answers the conversation.
func (m *TestModel) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &chat.Options{}
	}
	model := opts.Model
	if model == "" {
		model = m.opts.Model
	}
	resp := &chat.Response{ID: fmt.Sprintf("test-%d", len(msgs)), Model: model}
	var msg chat.Message
	if results := trailingResults(msgs); len(results) > 0 {
		msg, resp.FinishReason = m.summary(msgs, results), chat.FinishStop
	} else if calls, err := m.calls(msgs, opts); err != nil {
		return nil, err
	} else if len(calls) > 0 {
		msg, resp.FinishReason = chat.Message{Role: chat.RoleAssistant, Parts: calls}, chat.FinishToolCalls
	} else {
		text := m.opts.Text
		if text == "" {
			text = "No tools were called."
		}
		msg, resp.FinishReason = chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}, chat.FinishStop
	}
	resp.Messages = []chat.Message{msg}
	resp.Usage = estimateUsage(msgs, opts, resp.Messages)
	return resp, nil
}

// Stream yields the answer of Respond in pieces.
func (m *TestModel) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := m.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		streamResponse(ctx, resp, byWords, yield)
	}
}

// calls builds one call per tool to call, with arguments generated from its schema.
func (m *TestModel) calls(msgs []chat.Message, opts *chat.Options) ([]chat.Part, error) {
	turn := 0
	for _, msg := range msgs {
		if msg.Role == chat.RoleAssistant {
			turn++
		}
	}
	var parts []chat.Part
	for _, t := range opts.Tools {
		if m.opts.Tools != nil && !slices.Contains(m.opts.Tools, t.Name) {
			continue
		}
		args, err := GenerateArguments(t.Schema, m.seedFor(t.Name))
		if err != nil {
			return nil, fmt.Errorf("chattest: arguments of tool %q: %w", t.Name, err)
		}
		parts = append(parts, chat.ToolCall{ID: fmt.Sprintf("call_%d_%d", turn+1, len(parts)+1), Name: t.Name, Arguments: args})
	}
	return parts, nil
}

// seedFor mixes the tool's name into the seed, so that a tool's arguments do not depend on what else is offered.
func (m *TestModel) seedFor(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return m.opts.Seed ^ int64(h.Sum64())
}

// trailingResults returns the tool results after the last assistant message.
func trailingResults(msgs []chat.Message) []chat.ToolResult {
	var out []chat.ToolResult
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != chat.RoleAssistant; i-- {
		for j := len(msgs[i].Parts) - 1; j >= 0; j-- {
			if r, ok := msgs[i].Parts[j].(chat.ToolResult); ok {
				out = append(out, r)
			}
		}
	}
	slices.Reverse(out)
	return out
}

// summary reports each result, naming the tool its call went to.
func (m *TestModel) summary(msgs []chat.Message, results []chat.ToolResult) chat.Message {
	text := m.opts.Text
	if text == "" {
		names := map[string]string{}
		for _, msg := range msgs {
			for _, c := range msg.ToolCalls() {
				names[c.ID] = c.Name
			}
		}
		var b strings.Builder
		b.WriteString("Tool results:")
		for _, r := range results {
			name := names[r.CallID]
			if name == "" {
				name = r.CallID
			}
			if r.Error != "" {
				fmt.Fprintf(&b, "\n- %s failed: %s", name, r.Error)
			} else {
				fmt.Fprintf(&b, "\n- %s returned %s", name, r.Result)
			}
		}
		text = b.String()
	}
	return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}
}
