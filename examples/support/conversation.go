package main

import (
	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// A conversation is one chat with the agent across runs: the messages so far and the mode the last run ended in.
type conversation struct {
	messages []chat.Message
	mode     string
}

// newConversation starts a conversation. Without a conversation store the caller keeps the history and hands it
// to each run; a store would keep it instead (in memory, or in Postgres), and this is the one place to change.
func newConversation() *conversation { return &conversation{} }

// options are the run options that carry the conversation into a run.
func (c *conversation) options() []agent.RunOption {
	return []agent.RunOption{agent.Messages(c.messages), agent.Mode(c.mode)}
}

// keep records what a run ended with, for the next run.
func (c *conversation) keep(res *agent.Result) { c.messages, c.mode = res.Messages, res.Mode }
