// Package tsh021 has jsonschema tags that cannot be read. // want package:`tools example\.com/tsh021\.Tools\{good\}`
package tsh021

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Limit caps the results.
	Limit int `json:"limit" jsonschema:"minimum=one"` // want `TSH021: jsonschema tag of Input.Limit: minimum=one is not a number`
}

type Unknown struct {
	// Query is what to look for.
	Query string `json:"query" jsonschema:"colour=blue"` // want `TSH021: jsonschema tag of Unknown.Query`
}

type Misfit struct {
	// Name is a name.
	Name string `json:"name" jsonschema:"minimum=3"` // want `TSH021: jsonschema tag of Misfit.Name`
}

type Good struct {
	// Limit caps the results.
	Limit int `json:"limit" jsonschema:"minimum=1,maximum=100,default=20"`
	// Status picks tickets by status.
	Status string `json:"status" jsonschema:"enum=open,enum=closed"`
	// Code is a code.
	Code string `json:"code" jsonschema:"pattern=^[A-Z]{3}$,minLength=3,maxLength=3"`
}

// Tools reads tags.
type Tools struct{ toolset.Toolset }

func (t *Tools) Declare() {
	t.AddTool(t.Bad)
	t.AddTool(t.BadKey)
	t.AddTool(t.BadFit)
	t.AddTool(t.Good)
}

// Bad has bad tags.
func (t *Tools) Bad(ctx context.Context, in Input) error { return nil }

// BadKey has an unknown key.
func (t *Tools) BadKey(ctx context.Context, in Unknown) error { return nil }

// BadFit has a constraint that does not fit the field.
func (t *Tools) BadFit(ctx context.Context, in Misfit) error { return nil }

// Good has good tags.
func (t *Tools) Good(ctx context.Context, in Good) error { return nil }
