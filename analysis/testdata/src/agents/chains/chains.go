// Package chains declares agents whose chains the generator cannot read. // want package:`tools example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
package chains

import (
	"github.com/typeshift-go/typeshift/agent"

	"example.com/agents/tickets"
)

func name() string { return "support" }

// Split uses a toolset outside a chain statement and names itself with a call.
type Split struct{ agent.Agent }

func (a *Split) Declare() {
	a.WithName(name())                        // want `TSH008: WithName takes a string constant`
	u := agent.Use[*tickets.Tickets](a)       // want `TSH014: call agent.Use directly in Declare`
	u.Exclude((*tickets.Tickets).CloseTicket) // want `TSH014: write each option and each use as one statement in Declare`
	useLater(a)
}

func useLater(a *Split) {
	agent.Use[*tickets.Tickets](a) // want `TSH014: agent.Use must be called directly in the agent's Declare method, not in useLater`
}

// Clean names itself with a constant and uses the toolset in one chain: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	a.WithName("clean_support")
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).CloseTicket)
}
