package main

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/examples/tickets"
)

// Support answers customers' questions about their tickets. It may search and read tickets at will; closing one
// waits for a person's approval, because the Tickets toolset declares close_ticket with RequiresApproval.
type Support struct{ agent.Agent }

// Declare describes the agent.
func (a *Support) Declare() {
	a.WithInstructions("You help customers with their support tickets. Search for a ticket or read it before " +
		"you answer about it, and answer in one or two sentences. Close a ticket only when the customer asks, " +
		"giving the reason they gave.")
	// The model and the seed are open to settings: the program sets them per run from OPENAI_MODEL and -seed.
	a.WithModel("openai", "gpt-4.1-mini").Configurable()
	a.WithSeed(1).Configurable()
	a.WithMaxIterations(10)
	agent.Use[*tickets.Tickets](a)
}
