// Package tsh019 marks settings configurable that cannot be stored. // want package:`tools example\.com/tsh019\.Tickets\{lookup, scan\}`
package tsh019

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

type Settings struct {
	Limit  int    `json:"limit" typeshift:"configurable"`
	Hidden string `json:"-" typeshift:"configurable"` // want `TSH019: Hidden is marked configurable but json:"-" keeps it out of stored settings`
}

type Unexported struct {
	Limit  int    `json:"limit"`
	secret string `typeshift:"configurable"` // want `TSH019: secret is marked configurable but is unexported`
}

type Good struct {
	Limit int  `json:"limit" typeshift:"configurable"`
	Fuzzy bool `json:"fuzzy"`
}

// Tickets has settings.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Search).WithSettings(Settings{})
	t.AddTool(t.Hide).WithSettings(Unexported{})
	t.AddTool(t.Find).WithSettings(Good{}).Configurable("depth") // want `TSH019: Good has no field with the json name "depth"`
	t.AddTool(t.Lookup).WithSettings(Good{}).Configurable("fuzzy")
	t.AddTool(t.Scan).WithConfigurableSettings(Good{}).NotConfigurable("limit")
}

// Search searches.
func (t *Tickets) Search(ctx context.Context, in Input, s Settings) error { return nil }

// Hide hides.
func (t *Tickets) Hide(ctx context.Context, in Input, s Unexported) error { return nil }

// Find finds.
func (t *Tickets) Find(ctx context.Context, in Input, s Good) error { return nil }

// Lookup looks up.
func (t *Tickets) Lookup(ctx context.Context, in Input, s Good) error { return nil }

// Scan scans.
func (t *Tickets) Scan(ctx context.Context, in Input, s Good) error { return nil }
