// Package tsh018 gives settings of the wrong type. // want package:`tools example\.com/tsh018\.Tickets\{find\}`
package tsh018

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// Query is what to look for.
	Query string `json:"query"`
}

type SearchSettings struct {
	Limit int `json:"limit" typeshift:"configurable"`
}

type OtherSettings struct {
	Depth int `json:"depth"`
}

// Tickets passes settings.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Search).WithSettings(OtherSettings{Depth: 2}) // want `TSH018: the settings are .*OtherSettings but Search takes SearchSettings`
	t.AddTool(t.NoSettings).WithSettings(SearchSettings{})    // want `TSH018: NoSettings takes no settings parameter`
	t.AddTool(t.WantsSettings)                                // want `TSH018: WantsSettings takes settings .*SearchSettings.* but the chain gives none`
	t.AddTool(t.Find).WithSettings(SearchSettings{Limit: 20})
}

// Search searches.
func (t *Tickets) Search(ctx context.Context, in Input, s SearchSettings) error { return nil }

// NoSettings takes only an input.
func (t *Tickets) NoSettings(ctx context.Context, in Input) error { return nil }

// WantsSettings takes settings without a WithSettings.
func (t *Tickets) WantsSettings(ctx context.Context, in Input, s SearchSettings) error { return nil }

// Find has matching settings.
func (t *Tickets) Find(ctx context.Context, in Input, s SearchSettings) error { return nil }
