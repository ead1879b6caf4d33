// Package stalepick picks a method of another package's toolset that is no longer a tool. // want package:`tools example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
//
// The parser, which sees only that package's generated code, still finds the identity of the old tool there; the
// analyzer knows the toolset's tools from the package's fact.
package stalepick

import (
	"github.com/typeshift-go/typeshift/agent"

	"example.com/agents/tickets"
)

// Support excludes a tool that Tickets no longer declares.
type Support struct{ agent.Agent } // want `TSH024: agent Support picks example\.com/agents/tickets\.Tickets\.Reopen, which is no longer a tool`

func (a *Support) Declare() {
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).Reopen)
}

// Clean picks tools that Tickets still declares: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).CloseTicket)
}
