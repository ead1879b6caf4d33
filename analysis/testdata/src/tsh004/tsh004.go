// Package tsh004 declares tools whose methods cannot be bound. // want package:`tools example\.com/tsh004\.Tools\{good, good_with_call, no_input\}`
package tsh004

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

type Other struct {
	// Limit caps the results.
	Limit int `json:"limit"`
}

type WithChan struct {
	// Events is a channel, which JSON cannot carry.
	Events chan string `json:"events"` // want `TSH004: the channel chan string at WithChan.Events has no JSON form`
}

type WithComplex struct {
	// Z is a complex number, which JSON cannot carry.
	Z complex128 `json:"z"` // want `TSH004: .*complex128.*WithComplex.Z`
}

type WithFunc struct {
	// Callback is a function, which JSON cannot carry.
	Callback func() `json:"callback"` // want `TSH004: .*func\(\).*WithFunc.Callback`
}

// Tools shows signatures a tool can and cannot have.
type Tools struct{ toolset.Toolset }

func (t *Tools) Declare() {
	t.AddTool(t.ContextLast)  // want `TSH004: ContextLast cannot be a tool: context.Context must be the first parameter`
	t.AddTool(t.NotAStruct)   // want `TSH004: NotAStruct cannot be a tool: parameter query has type string`
	t.AddTool(t.TwoInputs)    // want `TSH004: TwoInputs cannot be a tool: it takes 3 structs`
	t.AddTool(t.PointerInput) // want `TSH004: PointerInput cannot be a tool: parameter in is a pointer`
	t.AddTool(t.CallFirst)    // want `TSH004: CallFirst cannot be a tool: \*toolset.Call must be the last parameter`
	t.AddTool(t.ThreeResults) // want `TSH004: ThreeResults cannot be a tool: it returns 3 results`
	t.AddTool(t.ChanResult)   // want `TSH004: the channel chan string has no JSON form`
	t.AddTool(t.ChanInInput)
	t.AddTool(t.ComplexInInput) // want `TSH004: ComplexInInput cannot be a tool: parameter in has type struct{Z complex128}`
	t.AddTool(t.ComplexField)
	t.AddTool(t.FuncField)

	t.AddTool(t.Good)
	t.AddTool(t.GoodWithCall)
	t.AddTool(t.NoInput)
}

// ContextLast has its context in the wrong place.
func (t *Tools) ContextLast(in Input, ctx context.Context) error { return nil }

// NotAStruct takes a bare string.
func (t *Tools) NotAStruct(ctx context.Context, query string) error { return nil }

// TwoInputs takes more than one input.
func (t *Tools) TwoInputs(ctx context.Context, a Input, b Other, c Input) error { return nil }

// PointerInput takes its input by pointer.
func (t *Tools) PointerInput(ctx context.Context, in *Input) error { return nil }

// CallFirst puts the call before the input.
func (t *Tools) CallFirst(call *toolset.Call, in Input) error { return nil }

// ThreeResults returns too much.
func (t *Tools) ThreeResults(ctx context.Context, in Input) (string, int, error) { return "", 0, nil }

// ChanResult returns a channel.
func (t *Tools) ChanResult(ctx context.Context, in Input) (chan string, error) { return nil, nil }

// ChanInInput takes a struct holding a channel.
func (t *Tools) ChanInInput(ctx context.Context, in WithChan) error { return nil }

// ComplexInInput takes a struct holding a complex number.
func (t *Tools) ComplexInInput(ctx context.Context, in struct{ Z complex128 }) error { return nil }

// ComplexField takes a struct holding a complex number.
func (t *Tools) ComplexField(ctx context.Context, in WithComplex) error { return nil }

// FuncField takes a struct holding a function.
func (t *Tools) FuncField(ctx context.Context, in WithFunc) error { return nil }

// Good is bound as it is.
func (t *Tools) Good(ctx context.Context, in Input) (string, error) { return in.Query, nil }

// GoodWithCall reads the raw call too.
func (t *Tools) GoodWithCall(ctx context.Context, in Input, call *toolset.Call) (string, error) {
	return call.ID, nil
}

// NoInput takes nothing but a context.
func (t *Tools) NoInput(ctx context.Context) error { return nil }
