package agent

import (
	"context"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// A ContextProvider adds to each run what the agent should know now: instructions (the user's preferences, the
// time), messages (retrieved documents) and tools. It sees the run and the messages the model is about to read.
type ContextProvider interface {
	Context(ctx context.Context, run *toolset.Run, msgs []chat.Message) (Context, error)
}

// Context is what a ContextProvider adds. The messages go before the conversation, after the instructions; they
// reach the model but not [Result.Messages], so they are never stored.
type Context struct {
	// Instructions are appended to the agent's.
	Instructions string
	// Messages are sent before the conversation.
	Messages []chat.Message
	// Tools are offered with the agent's, under the same rules.
	Tools []*toolset.Tool
}

// ContextFunc adapts a function to a ContextProvider.
type ContextFunc func(ctx context.Context, run *toolset.Run, msgs []chat.Message) (Context, error)

// Context calls f.
func (f ContextFunc) Context(ctx context.Context, run *toolset.Run, msgs []chat.Message) (Context, error) {
	return f(ctx, run, msgs)
}
