// Package shapes declares a toolset whose tools take and return every shape the generator supports.
package shapes

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/shapes/geo"
	"github.com/typeshift-go/typeshift/toolset"
)

// Shapes exercises the generator.
type Shapes struct {
	toolset.Toolset
	// Calls records the raw arguments of each call of Raw.
	Calls []string
}

func (s *Shapes) Declare() {
	s.AddTool(s.Echo).ReadOnly()
	s.AddTool(s.Kinds)
	s.AddTool(s.Tree)
	s.AddTool(s.Count).WithName("count_up")
	s.AddTool(s.Words)
	s.AddTool(s.Configure).
		WithConfigurableSettings(Tuning{Level: 3, Mode: "fast", Secret: "s3cr3t"}).
		NotConfigurable("secret")
	s.AddTool(s.Picked).
		WithSettings(Tuning{Level: 1, Mode: "slow"}).
		Configurable("mode")
	s.AddTool(s.Raw)
	s.AddTool(Version).WithDescription("Reports the version.")
	s.AddTool(s.Fail)
	s.AddTool(s.Blob)
	s.AddTool(s.Pages)
}

// Priority orders work.
//
//typeshift:enum
type Priority string

const (
	Low    Priority = "low"
	Normal Priority = "normal"
	High   Priority = "high"
)

// Base holds what every request carries; it is embedded.
type Base struct {
	// ID identifies the request.
	ID string `json:"id" jsonschema:"pattern=^[a-z]+-[0-9]+$"`
	// Note is shadowed by the outer struct's Note.
	Note string `json:"note,omitempty"`
}

// Meta is embedded at depth two through Extra.
type Meta struct {
	Source string `json:"source,omitempty"`
}

// Extra is embedded and brings Meta's fields.
type Extra struct {
	Meta
}

// EchoInput holds every kind of value.
type EchoInput struct {
	Base
	Extra
	// Note wins over Base.Note, being shallower.
	Note     string          `json:"note,omitempty"`
	Flag     bool            `json:"flag"`
	I8       int8            `json:"i8,omitempty"`
	I16      int16           `json:"i16,omitempty"`
	I32      int32           `json:"i32,omitempty"`
	I64      int64           `json:"i64,omitempty"`
	U8       uint8           `json:"u8,omitempty"`
	U16      uint16          `json:"u16,omitempty"`
	U32      uint32          `json:"u32,omitempty"`
	U64      uint64          `json:"u64,omitempty"`
	F32      float32         `json:"f32,omitempty"`
	F64      float64         `json:"f64,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Data     []byte          `json:"data,omitempty"`
	When     time.Time       `json:"when,omitzero"`
	Stamp    string          `json:"stamp,omitempty" jsonschema:"format=date-time"`
	Any      any             `json:"any,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	Priority Priority        `json:"priority,omitempty" jsonschema:"default=normal"`
	Tags     []string        `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,maxLength=5"`
	Grid     [2]int          `json:"grid,omitzero"`
	Scores   map[string]int  `json:"scores,omitempty"`
	Place    *geo.Point      `json:"place,omitempty"`
	Places   []geo.Point     `json:"places,omitempty"`
	Limit    *int            `json:"limit,omitempty" jsonschema:"minimum=1,maximum=10,default=5"`
	Count    int64           `json:"count,string,omitempty"`
	Ok       bool            `json:"ok,string,omitempty"`
	Window   struct {
		From int `json:"from"`
		To   int `json:"to,omitempty"`
	} `json:"window,omitzero"`
	Lang string `json:"lang,omitempty" jsonschema:"enum=en,enum=de,title=Language,example=en"`
	// Amount is kept as written.
	Amount json.Number `json:"amount,omitempty" jsonschema:"minimum=0,exclusiveMaximum=1e3"`
	// Wait is a duration in nanoseconds.
	Wait time.Duration `json:"wait,omitempty" jsonschema:"minimum=0"`
	// Day is a calendar date.
	Day string `json:"day,omitempty" jsonschema:"format=date"`
	// Ratio is a small float between bounds.
	Ratio   float32 `json:"ratio,omitempty" jsonschema:"minimum=0.1,maximum=0.5"`
	Skipped string  `json:"-"`
	Dash    string  `json:"-,"`
	NoTag   string
	hidden  string
}

// Echo returns its input as it read it.
func (s *Shapes) Echo(in EchoInput) (EchoInput, error) {
	in.hidden = ""
	return in, nil
}

// KindsInput takes one named value of each kind.
type KindsInput struct {
	Level  Level            `json:"level"`
	Labels map[Label]string `json:"labels,omitempty"`
}

// Level is a named integer.
type Level int16

// Label is a named string used as a map key.
type Label string

// KindsOutput is what Kinds returns.
type KindsOutput struct {
	Level  Level            `json:"level"`
	Labels map[Label]string `json:"labels"`
	Stamp  Stamp            `json:"stamp"`
	Nil    []int            `json:"nil"`
	Empty  map[string]int   `json:"empty,omitempty"`
}

// Stamp writes itself; results may hold such types.
type Stamp struct{ At int }

// MarshalJSON writes the stamp as a string.
func (s Stamp) MarshalJSON() ([]byte, error) {
	return json.Marshal("stamp-" + strings.Repeat("x", max(s.At, 0)%8))
}

// Kinds reports named kinds back, with a type that marshals itself.
func (s *Shapes) Kinds(ctx context.Context, in KindsInput) KindsOutput {
	return KindsOutput{Level: in.Level, Labels: in.Labels, Stamp: Stamp{At: int(in.Level)}}
}

// Node is a recursive tree.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
	Parent   *Node  `json:"parent,omitempty"`
}

// Tree counts the nodes of a tree.
func (s *Shapes) Tree(in Node) (int, error) {
	var count func(n Node) int
	count = func(n Node) int {
		c := 1
		for _, ch := range n.Children {
			c += count(ch)
		}
		return c
	}
	return count(in), nil
}

// CountInput says how far to count.
type CountInput struct {
	To int `json:"to" jsonschema:"minimum=0,maximum=5"`
}

// Count streams the numbers up to To.
func (s *Shapes) Count(in CountInput) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 1; i <= in.To; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// WordsInput is a sentence.
type WordsInput struct {
	Text string `json:"text"`
}

// Words streams the words of a sentence and fails on the word "boom".
func (s *Shapes) Words(ctx context.Context, in WordsInput) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, w := range strings.Fields(in.Text) {
			if w == "boom" {
				yield("", errors.New("the word boom cannot be read"))
				return
			}
			if !yield(w, nil) {
				return
			}
		}
	}
}

// Tuning are settings the model never sees.
type Tuning struct {
	Level  int      `json:"level" jsonschema:"minimum=1,maximum=5"`
	Mode   string   `json:"mode" jsonschema:"enum=fast,enum=slow"`
	Secret string   `json:"secret"`
	Extras []string `json:"extras,omitempty"`
}

// Tuned takes its default settings from a field, a value the generator cannot read: the generated code checks
// it against the tags when the tools are made.
type Tuned struct {
	toolset.Toolset
	Defaults Tuning
}

func (t *Tuned) Declare() {
	t.AddTool(t.Adjust).WithSettings(t.Defaults)
}

// Adjust reports the settings it runs with.
func (t *Tuned) Adjust(ctx context.Context, s Tuning) (Tuning, error) {
	return s, nil
}

// Configure reports the settings it runs with.
func (s *Shapes) Configure(ctx context.Context, t Tuning) (Tuning, error) {
	return t, nil
}

// PickedInput is a name.
type PickedInput struct {
	Name string `json:"name"`
}

// Picked reports its input and the settings it runs with.
func (s *Shapes) Picked(ctx context.Context, in PickedInput, t Tuning, call *toolset.Call) (string, error) {
	return in.Name + " " + t.Mode + " " + call.ID, nil
}

// Raw records its raw arguments.
func (s *Shapes) Raw(call *toolset.Call) error {
	s.Calls = append(s.Calls, string(call.Arguments))
	return nil
}

// Version is a package-level function offered as a tool.
func Version() string { return "1.0" }

// Fail always fails, with a message for the model.
func (s *Shapes) Fail(ctx context.Context) error {
	return errors.New("nothing to do: call echo instead")
}

// BlobOutput holds the values encoding/json writes specially.
type BlobOutput struct {
	F     float64         `json:"f"`
	When  time.Time       `json:"when"`
	Raw   json.RawMessage `json:"raw"`
	HTML  string          `json:"html"`
	Ptr   *geo.Point      `json:"ptr"`
	Bytes []byte          `json:"bytes"`
}

// BlobInput picks what Blob returns.
type BlobInput struct {
	Bad string `json:"bad,omitempty" jsonschema:"enum=nan,enum=year,enum=raw"`
}

// Blob returns values encoding/json writes specially, or one it cannot write.
func (s *Shapes) Blob(in BlobInput) BlobOutput {
	out := BlobOutput{F: 1e21, When: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Raw: json.RawMessage(` { "a" : 1 } `),
		HTML: "<a&b>", Bytes: []byte("hi")}
	switch in.Bad {
	case "nan":
		out.F = zero / zero
	case "year":
		out.When = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	case "raw":
		out.Raw = json.RawMessage(`{`)
	}
	return out
}

var zero float64

// Page is a generic page of results.
type Page[T any] struct {
	// Items are the results on this page.
	Items []T `json:"items"`
	// Next is the cursor of the next page, if any.
	Next *string `json:"next,omitempty"`
	// Total counts every result; its zero is written.
	Total Money `json:"total,omitzero"`
	// Spent is left out when nil or zero.
	Spent *Money `json:"spent,omitzero"`
	// Index maps names to positions.
	Index *map[string][]int `json:"index,omitempty"`
}

// Money says through IsZero when it is zero.
type Money struct {
	Cents int64  `json:"cents"`
	Unit  string `json:"unit,omitempty"`
}

// IsZero reports an amount of no cents, whatever the unit.
func (m Money) IsZero() bool { return m.Cents == 0 }

// PagesInput asks for a page.
type PagesInput struct {
	// Size is how many items the page holds.
	Size int `json:"size" jsonschema:"minimum=0,maximum=3"`
}

// Pages returns a page of nodes.
func (s *Shapes) Pages(in PagesInput) (Page[Node], error) {
	p := Page[Node]{Items: []Node{}, Total: Money{Unit: "eur"}}
	for i := range in.Size {
		p.Items = append(p.Items, Node{Name: strings.Repeat("n", i+1)})
	}
	if in.Size > 1 {
		next := "c2"
		p.Next = &next
		p.Total.Cents = int64(in.Size)
		idx := map[string][]int{"b": {2}, "a": {1, 1}}
		p.Index = &idx
		p.Spent = &Money{Cents: 1}
	} else {
		p.Spent = &Money{Unit: "usd"}
	}
	return p, nil
}
