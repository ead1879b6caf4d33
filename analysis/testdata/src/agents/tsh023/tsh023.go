// Package tsh023 uses types that are not toolsets. // want package:`tools example\.com/agents/tsh023\.Notes\{add_note\} example\.com/agents/tickets\.Tickets\{search_tickets, close_ticket\}`
package tsh023

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"

	"example.com/agents/tickets"
)

// Handmade is a source written by hand: it has Tools and SourceName, but the generator knows no tools of it.
type Handmade struct{}

func (Handmade) SourceName() string { return "Handmade" }

func (Handmade) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, nil }

// Wrapper gets toolset.Toolset through another type, so it is not a toolset either.
type Wrapper struct{ tickets.Tickets } // want `TSH017: Wrapper gets toolset.Toolset through`

// Input names a note.
type Input struct {
	// Text is the note.
	Text string `json:"text"`
}

// Notes is a toolset of this package.
type Notes struct{ toolset.Toolset }

func (n *Notes) Declare() { n.AddTool(n.AddNote) }

// AddNote adds a note.
func (n *Notes) AddNote(ctx context.Context, in Input) error { return nil }

// Support uses two sources that are not toolsets.
type Support struct{ agent.Agent }

func (a *Support) Declare() {
	agent.Use[Handmade](a) // want `TSH023: agent.Use takes a toolset type, and Handmade is not one`
	agent.Use[*Wrapper](a) // want `TSH023: agent.Use takes a toolset type, and \*Wrapper is not one`
}

// Clean uses toolsets of this package and of another: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	agent.Use[*Notes](a)
	agent.Use[*tickets.Tickets](a).Exclude((*tickets.Tickets).CloseTicket)
}
