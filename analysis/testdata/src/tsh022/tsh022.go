// Package tsh022 has input fields without descriptions. // want package:`tools example\.com/tsh022\.Tools\{search\}`
package tsh022

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// The expectations sit two lines above their fields, apart from them: a comment on a field's line or just above
// it would be the field's description. Filter.Scope needs none: the doc comment of Area describes it.

type Input struct {
	// want +2 `TSH022: input property "query" of tool "search" has no description`

	Query string `json:"query"`
	// Limit caps the results.
	Limit int `json:"limit"`
	// Filter narrows the search.
	Filter Filter `json:"filter"`
	Closed bool   `json:"closed"`
	Status string `json:"status" jsonschema:"enum=open,enum=closed"`
	Code   string `json:"code" jsonschema:"description=The customer's code"`
	Period Period `json:"period"`
	Base
}

type Filter struct {
	// want +2 `TSH022: input property "filter.owner" of tool "search" has no description`

	Owner string `json:"owner"`
	// Since is the earliest date, as 2006-01-02.
	Since string `json:"since"`

	Scope Area `json:"scope"`
}

// Period is a time span, such as "last_week".
type Period string

// Area is a region of the customer's account, such as "billing".
type Area struct {
	// Name is the region's name.
	Name string `json:"name"`
}

type Base struct {
	// want +2 `TSH022: input property "tenant" of tool "search" has no description`

	Tenant string `json:"tenant"`
}

// Tools has fields.
type Tools struct{ toolset.Toolset }

func (t *Tools) Declare() {
	t.AddTool(t.Search)
}

// Search searches.
func (t *Tools) Search(ctx context.Context, in Input) error { return nil }

// Helper is an agent with a tool of its own.
type Helper struct{ agent.Agent }

func (a *Helper) Declare() {
	a.AddTool(a.Lookup)
}

type LookupInput struct {
	// want +2 `TSH022: input property "key" of tool "lookup" has no description`

	Key string `json:"key"`
}

// Lookup finds a note.
func (a *Helper) Lookup(ctx context.Context, in LookupInput) (string, error) { return in.Key, nil }
