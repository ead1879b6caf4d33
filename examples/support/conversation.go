package main

import (
	"crypto/rand"

	"github.com/typeshift-go/typeshift/agent"
)

// tenant is the settings id the example's conversations belong to: a service passes its customer's.
const tenant = "example-tenant"

// A conversation is one chat with the agent across runs. The store (Config.Store) keeps its history, its pending
// approval requests, its mode and its standing approvals, so the caller keeps only its id, and the mode it wants
// to switch to.
type conversation struct {
	id   string
	mode string
}

// newConversation starts a conversation with a new id.
func newConversation() *conversation { return &conversation{id: "support-" + rand.Text()} }

// options are the run options that carry the conversation into a run.
func (c *conversation) options() []agent.RunOption {
	return []agent.RunOption{agent.SettingsID(tenant), agent.Conversation(c.id), agent.Mode(c.mode)}
}

// keep records what a run ended with, for the next run.
func (c *conversation) keep(res *agent.Result) { c.mode = res.Mode }
