package shapes

import (
	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/shapes/geo"
)

// The agents below each answer with one of the shapes as a typed value: the generated answer decoders are held
// to the same rule as the tools' decoders (differential_test.go).

// Verdict is a judge's decision on a ticket.
type Verdict struct {
	// Decision is what happens to the ticket.
	Decision string `json:"decision" jsonschema:"enum=accept,enum=reject,enum=escalate"`
	// Priority is how soon someone looks at it.
	Priority Priority `json:"priority"`
	// Confidence is how sure the judge is, from 0 to 1.
	Confidence float64 `json:"confidence" jsonschema:"minimum=0,maximum=1"`
	// Reasons explain the decision, one sentence each.
	Reasons []string `json:"reasons" jsonschema:"minItems=1,maxItems=3,minLength=1"`
	// Assignee is who takes the ticket, when someone must.
	Assignee *string `json:"assignee,omitempty" jsonschema:"pattern=^[a-z]+$"`
	// Where is where the ticket came from, when known.
	Where *geo.Point `json:"where,omitempty"`
}

// Judge decides on tickets.
type Judge struct{ agent.Agent }

func (a *Judge) Declare() {
	a.WithInstructions("Decide on the ticket.")
	agent.Returns[Verdict](a)
}

// Appeals decides again, with the same answer type: the file declares its schema and decoder once.
type Appeals struct{ agent.Agent }

func (a *Appeals) Declare() { agent.Returns[Verdict](a) }

// Echoer answers with every kind of value.
type Echoer struct{ agent.Agent }

func (a *Echoer) Declare() { agent.Returns[EchoInput](a) }

// Arborist answers with a recursive tree.
type Arborist struct{ agent.Agent }

func (a *Arborist) Declare() { agent.Returns[Node](a) }

// Sorter answers with named kinds.
type Sorter struct{ agent.Agent }

func (a *Sorter) Declare() { agent.Returns[KindsInput](a) }

// Locator answers with a type of another package.
type Locator struct{ agent.Agent }

func (a *Locator) Declare() { agent.Returns[geo.Point](a) }

// Pager answers with an instance of a generic type.
type Pager struct{ agent.Agent }

func (a *Pager) Declare() { agent.Returns[Page[geo.Point]](a) }
