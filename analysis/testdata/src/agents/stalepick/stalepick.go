// Package stalepick picks a method of another package's toolset that is no longer a tool. // want package:`tools example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
//
// That package's generated code, out of date, still declares the identity of the old tool; the parser checks the
// pick against the toolset's tools as the package's fact lists them, and reports it at the pick.
package stalepick

import (
	"github.com/typeshift-go/typeshift/agent"

	"example.com/agents/tickets"
)

// Support excludes a tool that Tickets no longer declares.
type Support struct{ agent.Agent }

func (a *Support) Declare() {
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).Reopen) // want `TSH024: Reopen is not a tool of \*tickets\.Tickets: pick a method that its Declare adds with AddTool`
}

// Clean picks tools that Tickets still declares: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).CloseTicket)
}
