package openai

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	sdk "github.com/openai/openai-go/v3"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// response converts a whole completion. Only the first choice is read: requests never ask for more.
func response(cc *sdk.ChatCompletion, r restorers) *chat.Response {
	resp := &chat.Response{ID: cc.ID, Model: cc.Model, Usage: usage(cc.Usage)}
	if len(cc.Choices) == 0 {
		return resp
	}
	ch := cc.Choices[0]
	resp.FinishReason = finishReason(ch.FinishReason)
	msg := chat.Message{Role: chat.RoleAssistant}
	if ch.Message.Content != "" {
		msg.Parts = append(msg.Parts, chat.Text{Text: ch.Message.Content})
	}
	if ch.Message.Refusal != "" {
		msg.Parts = append(msg.Parts, chat.Text{Text: ch.Message.Refusal})
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			msg.Parts = append(msg.Parts, chat.Raw{Provider: ProviderName, Data: json.RawMessage(tc.RawJSON())})
			continue
		}
		msg.Parts = append(msg.Parts, r.Restore(chat.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)}))
	}
	resp.Messages = []chat.Message{msg}
	return resp
}

func usage(u sdk.CompletionUsage) chat.Usage {
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	return chat.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: total,
		CacheReadTokens: u.PromptTokensDetails.CachedTokens, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
}

func finishReason(s string) chat.FinishReason {
	if s == "function_call" {
		return chat.FinishToolCalls
	}
	return chat.FinishReason(s)
}

// assembler turns stream chunks into updates: text deltas pass through, tool-call deltas are joined per index
// and each call is yielded whole when the choice finishes.
type assembler struct {
	id, model string
	calls     []pendingCall
	finished  bool
	// restore restores the arguments of tools sent in strict mode.
	restore restorers
	// chunks counts the chunks read: an error after the first is a stream cut halfway.
	chunks   int
	usage    chat.Usage
	hasUsage bool
}

type pendingCall struct {
	index    int64
	id, name string
	args     []byte
}

func (a *assembler) add(ch sdk.ChatCompletionChunk) []chat.Update {
	if ch.ID != "" {
		a.id = ch.ID
	}
	if ch.Model != "" {
		a.model = ch.Model
	}
	var out []chat.Update
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		d := choice.Delta
		if d.Content != "" || d.Refusal != "" {
			out = append(out, a.update(chat.Text{Text: d.Content + d.Refusal}))
		}
		for _, tc := range d.ToolCalls {
			a.addCall(tc)
		}
		if choice.FinishReason != "" {
			a.finished = true
			u := a.update()
			for _, c := range a.calls {
				u.Parts = append(u.Parts, a.restore.Restore(c.toolCall()))
			}
			a.calls = a.calls[:0]
			u.FinishReason = finishReason(choice.FinishReason)
			out = append(out, u)
		}
	}
	// Usage is kept, not yielded: some compatible servers repeat a running total on every chunk, and only the
	// last one counts.
	if ch.JSON.Usage.Valid() && (ch.Usage.PromptTokens != 0 || ch.Usage.CompletionTokens != 0) {
		a.usage = usage(ch.Usage)
		a.hasUsage = true
	}
	return out
}

func (a *assembler) update(parts ...chat.Part) chat.Update {
	return chat.Update{ResponseID: a.id, Model: a.model, Role: chat.RoleAssistant, Parts: parts}
}

func (a *assembler) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	i := slices.IndexFunc(a.calls, func(c pendingCall) bool { return c.index == tc.Index })
	if i < 0 {
		a.calls = append(a.calls, pendingCall{index: tc.Index})
		i = len(a.calls) - 1
	}
	c := &a.calls[i]
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args = append(c.args, tc.Function.Arguments...)
}

func (c pendingCall) toolCall() chat.ToolCall {
	args := c.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	return chat.ToolCall{ID: c.id, Name: c.name, Arguments: json.RawMessage(args)}
}

// finish checks the end of a stream that closed without an error, and returns the last update, carrying the
// usage, if any. A stream that never said why the model stopped was cut short, whatever the transport reported.
func (a *assembler) finish(ctx context.Context) (*chat.Update, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !a.finished {
		return nil, &chat.ProviderError{Provider: ProviderName, Message: "the stream ended before the model finished", Cut: true, Err: io.ErrUnexpectedEOF}
	}
	if !a.hasUsage {
		return nil, nil
	}
	u := a.update(chat.UsagePart{Usage: a.usage})
	return &u, nil
}
