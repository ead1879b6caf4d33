// Package tsh020 uses types the generator cannot describe as JSON. // want package:`tools example\.com/tsh020\.Tools\{fine\}`
package tsh020

import (
	"context"
	"time"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

type IntKeys struct {
	// Counts is keyed by numbers.
	Counts map[bool]int `json:"counts"` // want `TSH004: the map map\[bool\]int at IntKeys.Counts has bool keys`
}

type DoublePointer struct {
	// Ref is a pointer to a pointer.
	Ref **string `json:"ref"` // want `TSH020: the pointer to a pointer \*\*string at DoublePointer.Ref is not supported`
}

type Fine struct {
	// When is a time.
	When time.Time `json:"when"`
	// Tags are labels.
	Tags []string `json:"tags"`
	// Attrs are named values.
	Attrs map[string]string `json:"attrs"`
	// Next is optional.
	Next *Fine `json:"next,omitempty"`
}

// Tools takes types JSON cannot carry.
type Tools struct{ toolset.Toolset }

func (t *Tools) Declare() {
	t.AddTool(t.BoolKeys)
	t.AddTool(t.DoublePointer)
	t.AddTool(t.Fine)
}

// BoolKeys takes a map keyed by bool.
func (t *Tools) BoolKeys(ctx context.Context, in IntKeys) error { return nil }

// DoublePointer takes a pointer to a pointer.
func (t *Tools) DoublePointer(ctx context.Context, in DoublePointer) error { return nil }

// Fine takes what JSON carries.
func (t *Tools) Fine(ctx context.Context, in Fine) (Fine, error) { return in, nil }
