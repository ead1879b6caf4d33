package anthropic

import (
	"context"
	"encoding/json"
	"io"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// response converts a whole message.
func response(m *sdk.Message) *chat.Response {
	resp := &chat.Response{ID: m.ID, Model: string(m.Model), FinishReason: finishReason(m.StopReason),
		Usage: usage(m.Usage.InputTokens, m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens,
			m.Usage.OutputTokens, m.Usage.OutputTokensDetails.ThinkingTokens)}
	msg := chat.Message{Role: chat.RoleAssistant}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			msg.Parts = append(msg.Parts, chat.Text{Text: b.Text})
		case "thinking":
			msg.Parts = append(msg.Parts, chat.Reasoning{Provider: ProviderName, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			msg.Parts = append(msg.Parts, chat.Reasoning{Provider: ProviderName, Encrypted: b.Data})
		case "tool_use":
			msg.Parts = append(msg.Parts, chat.ToolCall{ID: b.ID, Name: b.Name, Arguments: arguments(b.Input)})
		default:
			msg.Parts = append(msg.Parts, chat.Raw{Provider: ProviderName, Data: json.RawMessage(b.RawJSON())})
		}
	}
	resp.Messages = []chat.Message{msg}
	return resp
}

// usage counts the input as every input token, cached or not: the API reports the cached ones apart.
func usage(input, cacheRead, cacheWrite, output, thinking int64) chat.Usage {
	in := input + cacheRead + cacheWrite
	return chat.Usage{InputTokens: in, OutputTokens: output, TotalTokens: in + output,
		CacheReadTokens: cacheRead, CacheWriteTokens: cacheWrite, ReasoningTokens: thinking}
}

func arguments(input json.RawMessage) json.RawMessage {
	if len(input) == 0 {
		return json.RawMessage(`{}`)
	}
	return append(json.RawMessage(nil), input...)
}

func finishReason(r sdk.StopReason) chat.FinishReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return chat.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return chat.FinishLength
	case sdk.StopReasonToolUse:
		return chat.FinishToolCalls
	case sdk.StopReasonRefusal:
		return chat.FinishContentFilter
	case "":
		return ""
	}
	return chat.FinishReason(r)
}

// assembler turns stream events into updates: text and thinking deltas pass through, a thinking block's
// signature follows its text, a tool call is yielded whole when its block stops, and usage and the finish
// reason come with the end of the message.
type assembler struct {
	id, model string
	blocks    map[int64]*pendingCall
	usage     sdk.MessageDeltaUsage
	stop      sdk.StopReason
	finished  bool
	// out holds the update add returns, which the caller reads before the next event: a delta costs no slice.
	out [1]chat.Update
}

type pendingCall struct {
	id, name string
	args     []byte
}

func (a *assembler) add(ev sdk.MessageStreamEventUnion) []chat.Update {
	switch ev.Type {
	case "message_start":
		m := ev.Message
		a.id, a.model = m.ID, string(m.Model)
		a.usage.InputTokens = m.Usage.InputTokens
		a.usage.CacheReadInputTokens = m.Usage.CacheReadInputTokens
		a.usage.CacheCreationInputTokens = m.Usage.CacheCreationInputTokens
		a.usage.OutputTokens = m.Usage.OutputTokens
	case "content_block_start":
		b := ev.ContentBlock
		switch b.Type {
		case "text":
			if b.Text != "" {
				return a.one(a.update(chat.Text{Text: b.Text}))
			}
		case "thinking":
			if b.Thinking != "" || b.Signature != "" {
				return a.one(a.update(chat.Reasoning{Provider: ProviderName, Text: b.Thinking, Signature: b.Signature}))
			}
		case "redacted_thinking":
			return a.one(a.update(chat.Reasoning{Provider: ProviderName, Encrypted: b.Data}))
		case "tool_use":
			if a.blocks == nil {
				a.blocks = map[int64]*pendingCall{}
			}
			a.blocks[ev.Index] = &pendingCall{id: b.ID, name: b.Name}
		}
	case "content_block_delta":
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			return a.one(a.update(chat.Text{Text: d.Text}))
		case "thinking_delta":
			return a.one(a.update(chat.Reasoning{Provider: ProviderName, Text: d.Thinking}))
		case "signature_delta":
			return a.one(a.update(chat.Reasoning{Provider: ProviderName, Signature: d.Signature}))
		case "input_json_delta":
			if c := a.blocks[ev.Index]; c != nil {
				c.args = append(c.args, d.PartialJSON...)
			}
		}
	case "content_block_stop":
		if c := a.blocks[ev.Index]; c != nil {
			delete(a.blocks, ev.Index)
			args := c.args
			if len(args) == 0 {
				args = []byte("{}")
			}
			return a.one(a.update(chat.ToolCall{ID: c.id, Name: c.name, Arguments: json.RawMessage(args)}))
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
		}
		// The counts are running totals; those the event leaves out keep their value from message_start.
		u := ev.Usage
		if u.JSON.InputTokens.Valid() {
			a.usage.InputTokens = u.InputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadInputTokens = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheCreationInputTokens = u.CacheCreationInputTokens
		}
		if u.JSON.OutputTokens.Valid() {
			a.usage.OutputTokens = u.OutputTokens
		}
		if u.JSON.OutputTokensDetails.Valid() {
			a.usage.OutputTokensDetails = u.OutputTokensDetails
		}
	case "message_stop":
		a.finished = true
		u := a.update(chat.UsagePart{Usage: usage(a.usage.InputTokens, a.usage.CacheReadInputTokens,
			a.usage.CacheCreationInputTokens, a.usage.OutputTokens, a.usage.OutputTokensDetails.ThinkingTokens)})
		u.FinishReason = finishReason(a.stop)
		if u.FinishReason == "" {
			u.FinishReason = chat.FinishStop
		}
		return a.one(u)
	}
	return nil
}

// one returns u as the only update of an event, in a's own buffer.
func (a *assembler) one(u chat.Update) []chat.Update {
	a.out[0] = u
	return a.out[:]
}

func (a *assembler) update(parts ...chat.Part) chat.Update {
	return chat.Update{ResponseID: a.id, Model: a.model, Role: chat.RoleAssistant, Parts: parts}
}

// finish checks the end of a stream that closed without an error: one that never reached message_stop was cut
// short, whatever the transport reported.
func (a *assembler) finish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !a.finished {
		return &chat.ProviderError{Provider: ProviderName, Message: "the stream ended before the model finished", Cut: true, Err: io.ErrUnexpectedEOF}
	}
	return nil
}
