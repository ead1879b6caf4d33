package chattest

import "github.com/typeshift-go/typeshift/agent/chat"

// EstimateTokens returns a deterministic token count for n bytes: one token per four bytes, rounded up.
func EstimateTokens(n int) int64 { return int64((n + 3) / 4) }

// estimateUsage estimates the usage of answering msgs under opts with out. It stands for a provider's own count,
// so it is kept apart from agent.Compaction's estimate on purpose: that one adds framing overhead per message and
// calibrates itself against what the provider reports, and tests check it against this count.
func estimateUsage(msgs []chat.Message, opts *chat.Options, out []chat.Message) chat.Usage {
	in := messageBytes(msgs)
	if opts != nil {
		in += len(opts.Instructions)
		for _, t := range opts.Tools {
			in += len(t.Name) + len(t.Description) + len(t.Schema)
		}
	}
	u := chat.Usage{InputTokens: EstimateTokens(in), OutputTokens: EstimateTokens(messageBytes(out))}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return u
}

func messageBytes(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Role) + len(m.AuthorName)
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				n += len(p.Text)
			case chat.ToolCall:
				n += len(p.ID) + len(p.Name) + len(p.Arguments)
			case chat.ToolResult:
				n += len(p.CallID) + len(p.Result) + len(p.Error)
			}
		}
	}
	return n
}
