// Package badtypes declares tools whose signatures or types the generator cannot bind; each is reported.
package badtypes

import (
	"context"
	"time"

	"github.com/typeshift-go/typeshift/toolset"
)

// T has one problem per tool.
type T struct {
	toolset.Toolset
}

func (t *T) Declare() {
	t.AddTool(t.Order)
	t.AddTool(t.NotStruct)
	t.AddTool(t.TwoInputs)
	t.AddTool(t.PtrInput)
	t.AddTool(t.Chan)
	t.AddTool(t.Func)
	t.AddTool(t.IntMap)
	t.AddTool(t.Iface)
	t.AddTool(t.Complex)
	t.AddTool(t.Settings).WithSettings(Other{})
	t.AddTool(t.NoSettingsParam).WithSettings(S{})
	t.AddTool(t.BadConfig).WithSettings(BadS{})
	t.AddTool(t.Settings).WithName("settings2").WithSettings(S{}).Configurable("nope")
	t.AddTool(t.Marsh)
	t.AddTool(t.EmbPtr)
	t.AddTool(t.BadTag)
	t.AddTool(t.MinStr)
	t.AddTool(t.BadRe)
	t.AddTool(t.BadEnum)
	t.AddTool(t.Results)
	t.AddTool(t.StrOpt)
	t.AddTool(t.Variadic)
	t.AddTool(t.BadDefault)
}

// In is a fine input.
type In struct {
	Q string `json:"q"`
}

// S is a fine settings struct.
type S struct {
	N int `json:"n" typeshift:"configurable"`
}

// Other is another settings struct.
type Other struct {
	M int `json:"m"`
}

// Order takes its context second.
func (t *T) Order(in In, ctx context.Context) error { return nil }

// NotStruct takes a string.
func (t *T) NotStruct(q string) error { return nil }

// TwoInputs takes two structs without settings.
func (t *T) TwoInputs(a In, s S) error { return nil }

// PtrInput takes a pointer.
func (t *T) PtrInput(in *In) error { return nil }

// ChanIn has a channel.
type ChanIn struct {
	C chan int `json:"c"`
}

// Chan takes a channel.
func (t *T) Chan(in ChanIn) error { return nil }

// FuncOut has a function.
type FuncOut struct {
	F func() `json:"f"`
}

// Func returns a function.
func (t *T) Func() FuncOut { return FuncOut{} }

// IntMapIn has a map with int keys.
type IntMapIn struct {
	M map[int]string `json:"m"`
}

// IntMap takes a map with int keys.
func (t *T) IntMap(in IntMapIn) error { return nil }

// IfaceIn has an interface.
type IfaceIn struct {
	E error `json:"e"`
}

// Iface takes an interface.
func (t *T) Iface(in IfaceIn) error { return nil }

// ComplexIn has a complex number.
type ComplexIn struct {
	Z complex128 `json:"z"`
}

// Complex takes a complex number.
func (t *T) Complex(in ComplexIn) error { return nil }

// Settings takes S.
func (t *T) Settings(in In, s S) error { return nil }

// NoSettingsParam takes no settings.
func (t *T) NoSettingsParam(in In) error { return nil }

// BadS marks a field that cannot be stored.
type BadS struct {
	Hidden string `json:"-" typeshift:"configurable"`
}

// BadConfig takes BadS.
func (t *T) BadConfig(s BadS) error { return nil }

// MarshIn holds a type with its own JSON methods.
type MarshIn struct {
	D Dur `json:"d"`
}

// Dur writes itself.
type Dur time.Duration

// MarshalText writes the duration.
func (d Dur) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Marsh takes MarshIn.
func (t *T) Marsh(in MarshIn) error { return nil }

// EmbPtrIn embeds a pointer.
type EmbPtrIn struct {
	*In
}

// EmbPtr takes EmbPtrIn.
func (t *T) EmbPtr(in EmbPtrIn) error { return nil }

// BadTagIn has an unknown key.
type BadTagIn struct {
	Q string `json:"q" jsonschema:"minimun=1"`
}

// BadTag takes BadTagIn.
func (t *T) BadTag(in BadTagIn) error { return nil }

// MinStrIn sets a minimum on a string.
type MinStrIn struct {
	Q string `json:"q" jsonschema:"minimum=1"`
}

// MinStr takes MinStrIn.
func (t *T) MinStr(in MinStrIn) error { return nil }

// BadReIn has a pattern that does not compile.
type BadReIn struct {
	Q string `json:"q" jsonschema:"pattern=[a-"`
}

// BadRe takes BadReIn.
func (t *T) BadRe(in BadReIn) error { return nil }

// Color is marked for enumeration but has no constants.
//
//typeshift:enum
type Color string

// BadEnumIn has Color.
type BadEnumIn struct {
	C Color `json:"c"`
}

// BadEnum takes BadEnumIn.
func (t *T) BadEnum(in BadEnumIn) error { return nil }

// Results returns three values.
func (t *T) Results() (int, int, error) { return 0, 0, nil }

// StrOptIn has ,string on a string.
type StrOptIn struct {
	Q string `json:"q,string"`
}

// StrOpt takes StrOptIn.
func (t *T) StrOpt(in StrOptIn) error { return nil }

// Variadic is variadic.
func (t *T) Variadic(in ...In) error { return nil }

// BadDefaultIn has a default that is not a number.
type BadDefaultIn struct {
	N int `json:"n,omitempty" jsonschema:"default=ten"`
}

// BadDefault takes BadDefaultIn.
func (t *T) BadDefault(in BadDefaultIn) error { return nil }
