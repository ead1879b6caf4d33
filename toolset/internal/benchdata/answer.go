package benchdata

import "github.com/typeshift-go/typeshift/agent"

// Triage is the agent of the answer benchmark: it answers with a Verdict rather than text.
type Triage struct{ agent.Agent }

// Declare declares the answer type.
func (a *Triage) Declare() {
	a.WithInstructions("Triage the ticket.")
	agent.Returns[Verdict](a)
}

// Verdict is a triage decision on a ticket, the typical size of a classification answer: an enumerated state, a
// bounded integer and float, a short text, a list of labels, an optional nested object and an optional number.
type Verdict struct {
	// The state the ticket moves to.
	Status Status `json:"status"`
	// How urgent the ticket is, from 1 (now) to 5 (whenever).
	Priority int `json:"priority" jsonschema:"minimum=1,maximum=5"`
	// How sure the decision is, from 0 to 1.
	Confidence float64 `json:"confidence" jsonschema:"minimum=0,maximum=1"`
	// One sentence for the person who picks the ticket up.
	Summary string `json:"summary" jsonschema:"maxLength=280"`
	// Labels to add to the ticket.
	Labels []string `json:"labels,omitempty" jsonschema:"maxItems=5"`
	// Who takes the ticket, when someone must.
	Route *Route `json:"route,omitempty"`
	// The number of the ticket this one repeats, if any.
	Duplicate *int `json:"duplicate,omitempty"`
}

// Route sends a ticket to a person of a team.
type Route struct {
	// The team's name.
	Team string `json:"team" jsonschema:"enum=hardware,enum=billing,enum=accounts"`
	// The login of the person, when known.
	Assignee string `json:"assignee,omitempty"`
}
