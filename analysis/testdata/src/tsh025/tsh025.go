// Package tsh025 has jsonschema tags whose keywords contradict each other. // want package:`tools example\.com/tsh025\.Tools\{good\}`
package tsh025

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

// Level is how urgent a ticket is.
//
//typeshift:enum
type Level string

// The levels.
const (
	Low  Level = "low"
	High Level = "high"
)

type Range struct {
	// Limit caps the results.
	Limit int `json:"limit" jsonschema:"minimum=100,maximum=1"` // want `TSH025: jsonschema tag of Range.Limit: minimum 100 is greater than maximum 1, so no value passes: swap them`
}

type Default struct {
	// Limit caps the results.
	Limit int `json:"limit" jsonschema:"minimum=1,maximum=100,default=500"` // want `TSH025: jsonschema tag of Default.Limit: default 500 is above maximum 100: change the default or the bound`
}

type DefaultEnum struct {
	// Status picks tickets by status.
	Status string `json:"status" jsonschema:"enum=open,enum=closed,default=all"` // want `TSH025: jsonschema tag of DefaultEnum.Status: default "all" is not one of the enum values "open", "closed"`
}

type EnumOutside struct {
	// Level is how urgent.
	Level Level `json:"level" jsonschema:"enum=low,enum=urgent"` // want `TSH025: jsonschema tag of EnumOutside.Level: enum value "urgent" is not a value of Level`
}

type Stringified struct {
	// Count is a number written as a string.
	Count int `json:"count,string" jsonschema:"enum=1,enum=2"` // want `TSH025: jsonschema tag of Stringified.Count: enum and default cannot apply to a field with the ,string option`
}

type Good struct {
	// Limit caps the results.
	Limit int `json:"limit" jsonschema:"minimum=1,maximum=100,default=20"`
	// Level is how urgent.
	Level Level `json:"level" jsonschema:"enum=high,default=high"`
	// Ratio is a share.
	Ratio float64 `json:"ratio" jsonschema:"exclusiveMinimum=0,maximum=1,default=0.5"`
}

// Tools reads tags.
type Tools struct{ toolset.Toolset }

func (t *Tools) Declare() {
	t.AddTool(t.BadRange)
	t.AddTool(t.BadDefault)
	t.AddTool(t.BadDefaultEnum)
	t.AddTool(t.BadEnum)
	t.AddTool(t.BadString)
	t.AddTool(t.Good)
}

// BadRange has an empty range.
func (t *Tools) BadRange(ctx context.Context, in Range) error { return nil }

// BadDefault has a default out of range.
func (t *Tools) BadDefault(ctx context.Context, in Default) error { return nil }

// BadDefaultEnum has a default outside its enum.
func (t *Tools) BadDefaultEnum(ctx context.Context, in DefaultEnum) error { return nil }

// BadEnum has an enum value its type refuses.
func (t *Tools) BadEnum(ctx context.Context, in EnumOutside) error { return nil }

// BadString has an enum on a ,string field.
func (t *Tools) BadString(ctx context.Context, in Stringified) error { return nil }

// Good has good tags.
func (t *Tools) Good(ctx context.Context, in Good) error { return nil }
