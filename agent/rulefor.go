package agent

import (
	"context"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// RuleFor is a [Rule] for one tool that reads the call's arguments as the tool's input struct: the generated
// decoder ([toolset.Tool.Decode]) decodes and checks them, and decide sees the typed value. Name the tool by the
// identity constant its toolset's generated code exports (see docs/tool-approval.md):
//
//	agent.RuleFor(tickets.TicketsCloseTicketID, func(ctx context.Context, in tickets.CloseInput) agent.Decision {
//		if in.Number < 1000 {
//			return agent.Allow // old tickets close without asking
//		}
//		return agent.Ask
//	})
//
// The rule answers [Ask] for every other tool, for a tool without a decoder, for arguments that do not decode
// and for a decoded value that is not an In, so a mistake in In never approves anything.
func RuleFor[In any](toolID string, decide func(ctx context.Context, in In) Decision) Rule {
	return func(ctx context.Context, t *toolset.Tool, call chat.ToolCall) Decision {
		if idOfTool(t) != toolID || t.Decode == nil {
			return Ask
		}
		v, err := t.Decode(call.Arguments)
		if err != nil {
			return Ask
		}
		in, ok := v.(In)
		if !ok {
			return Ask
		}
		return decide(ctx, in)
	}
}
