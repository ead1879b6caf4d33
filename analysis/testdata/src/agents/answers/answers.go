// Package answers declares agents whose answer types the generator cannot read.
package answers

import (
	"time"

	"github.com/typeshift-go/typeshift/agent"
)

// Verdict is a decision on a ticket.
type Verdict struct {
	// Decision is what happens to the ticket.
	Decision string `json:"decision" jsonschema:"enum=accept,enum=reject"`
	// Reasons explain it.
	Reasons []string `json:"reasons,omitempty"`
}

// Summary is another answer.
type Summary struct {
	// Text is the summary.
	Text string `json:"text"`
}

// Clean declares its answer type once, by value: nothing is reported.
type Clean struct{ agent.Agent }

func (a *Clean) Declare() {
	a.WithInstructions("Decide.")
	agent.Returns[Verdict](a)
}

// Pointer names its answer type through a pointer.
type Pointer struct{ agent.Agent }

func (a *Pointer) Declare() {
	agent.Returns[*Verdict](a) // want `TSH026: agent.Returns takes the answer struct by value, as a tool takes its input: use Verdict, not \*Verdict`
}

// Scalar and List name types that are not structs.
type Scalar struct{ agent.Agent }

func (a *Scalar) Declare() {
	agent.Returns[string](a) // want `TSH026: agent.Returns takes a named struct type, and string is not one`
}

type List struct{ agent.Agent }

func (a *List) Declare() {
	agent.Returns[[]Verdict](a) // want `TSH026: agent.Returns takes a named struct type, and \[\]Verdict is not one`
}

// Clock names a struct the generator reads as a string.
type Clock struct{ agent.Agent }

func (a *Clock) Declare() {
	agent.Returns[time.Time](a) // want `TSH026: agent.Returns takes a named struct type, and time.Time is not one`
}

// Twice declares two answer types.
type Twice struct{ agent.Agent }

func (a *Twice) Declare() {
	agent.Returns[Verdict](a)
	agent.Returns[Summary](a) // want `TSH027: Twice already declares its answer type with agent.Returns on line 63`
}

// Hidden declares its answer type in a helper and in a condition.
type Hidden struct {
	agent.Agent
	Brief bool
}

func (a *Hidden) Declare() {
	if a.Brief {
		agent.Returns[Summary](a) // want `TSH014: call agent.Returns directly in Declare, as a statement of its own`
	}
	answerLater(a)
}

func answerLater(a *Hidden) {
	agent.Returns[Verdict](a) // want `TSH014: agent.Returns must be called directly in the agent's Declare method, not in answerLater`
}

// Watch holds a field that has no JSON form.
type Watch struct {
	// Events never end.
	Events chan string `json:"events"` // want `TSH004: the channel chan string at Watch.Events has no JSON form`
}

// Watcher answers with it.
type Watcher struct{ agent.Agent }

func (a *Watcher) Declare() { agent.Returns[Watch](a) }

// Tagged holds a tag that cannot be read.
type Tagged struct {
	// Count is a number.
	Count int `json:"count" jsonschema:"minimum=ten"` // want `TSH021: `
}

// Counter answers with it.
type Counter struct{ agent.Agent }

func (a *Counter) Declare() { agent.Returns[Tagged](a) }

// Stamp writes itself.
type Stamp struct{ At int }

// MarshalJSON writes the stamp.
func (s Stamp) MarshalJSON() ([]byte, error) { return []byte(`"stamp"`), nil }

// Stamped holds a type with its own JSON methods.
type Stamped struct {
	// When is the stamp.
	When Stamp `json:"when"`
}

// Stamper answers with it.
type Stamper struct{ agent.Agent }

func (a *Stamper) Declare() {
	agent.Returns[Stamped](a) // want `TSH020: Stamped cannot be an answer type: Stamp in it has its own JSON methods`
}
