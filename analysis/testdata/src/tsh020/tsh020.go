// Package tsh020 uses types the generator cannot describe as JSON. // want package:`tools example\.com/tsh020\.Tools\{fine, by_color\}`
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

// Priority is how urgent a ticket is.
//
//typeshift:enum
type Priority int // want `TSH020: Priority is marked //typeshift:enum, which enumerates string types only, but it is a int: declare it as a string type, or list the allowed values on the field with jsonschema:"enum=\.\.\."`

const (
	Low  Priority = 1
	High Priority = 2
)

// Color is a ticket's label color.
//
//typeshift:enum
type Color string

const (
	Red  Color = "red"
	Blue Color = "blue"
)

type ByPriority struct {
	// Priority is how urgent.
	Priority Priority `json:"priority"`
}

type Hidden struct {
	// Query is what to look for.
	Query string `json:"query"`
	limit int    `json:"limit"` // want `TSH020: the field limit has a json tag but is unexported, so JSON leaves it out: export it, or drop the tag`
}

type HiddenSchema struct {
	since string `jsonschema:"description=After"` // want `TSH020: the field since has a jsonschema tag but is unexported`
}

type ByColor struct {
	// Color is the label's color.
	Color Color `json:"color"`
	seen  bool  // unexported without a tag: left out, as meant
	skip  int   `json:"-"`
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
	t.AddTool(t.ByPriority)
	t.AddTool(t.Hidden)
	t.AddTool(t.HiddenSchema)
	t.AddTool(t.ByColor)
}

// ByPriority takes an enumerated int.
func (t *Tools) ByPriority(ctx context.Context, in ByPriority) error { return nil }

// Hidden takes unexported fields with tags.
func (t *Tools) Hidden(ctx context.Context, in Hidden) error { return nil }

// HiddenSchema takes an unexported field with a jsonschema tag.
func (t *Tools) HiddenSchema(ctx context.Context, in HiddenSchema) error { return nil }

// ByColor takes an enumerated string.
func (t *Tools) ByColor(ctx context.Context, in ByColor) error { return in.check() }

func (in ByColor) check() error {
	_, _ = in.seen, in.skip
	return nil
}

// BoolKeys takes a map keyed by bool.
func (t *Tools) BoolKeys(ctx context.Context, in IntKeys) error { return nil }

// DoublePointer takes a pointer to a pointer.
func (t *Tools) DoublePointer(ctx context.Context, in DoublePointer) error { return nil }

// Fine takes what JSON carries.
func (t *Tools) Fine(ctx context.Context, in Fine) (Fine, error) { return in, nil }
