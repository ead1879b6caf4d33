// Package tsh018 gives settings of the wrong type. // want package:`tools example\.com/tsh018\.Tickets\{find, renew_at_most, renew_in_order\}`
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

type RenewSettings struct {
	Days  int     `json:"days" typeshift:"configurable" jsonschema:"minimum=1,maximum=28"`
	Mode  string  `json:"mode" jsonschema:"enum=mail,enum=phone"`
	Ratio float64 `json:"ratio" jsonschema:"exclusiveMaximum=1"`
	Note  string  `json:"note" jsonschema:"maxLength=5"`
}

const tooMany = 90

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
	t.AddTool(t.Renew).WithSettings(RenewSettings{Days: 90}) // want `TSH018: the setting RenewSettings\.Days = 90 is above maximum 28: the tool would run with a value its tag refuses` `TSH018: the setting RenewSettings\.Mode is left out, so "" is not one of the enum values "mail", "phone"`
	t.AddTool(t.RenewTwice).WithSettings(RenewSettings{
		Days:  tooMany,        // want `TSH018: the setting RenewSettings\.Days = 90 is above maximum 28`
		Mode:  "post",         // want `TSH018: the setting RenewSettings\.Mode = "post" is not one of the enum values "mail", "phone"`
		Ratio: 1,              // want `TSH018: the setting RenewSettings\.Ratio = 1 is not below exclusiveMaximum 1`
		Note:  "far too long", // want `TSH018: the setting RenewSettings\.Note = "far too long" is longer than maxLength 5`
	})
	t.AddTool(t.RenewAtMost).WithSettings(RenewSettings{Days: 28, Mode: "mail", Ratio: 0.5, Note: "short"})
	t.AddTool(t.RenewLeftOut).WithSettings(RenewSettings{Mode: "phone"}) // want `TSH018: the setting RenewSettings\.Days is left out, so 0 is below minimum 1`
	t.AddTool(t.RenewInOrder).WithSettings(RenewSettings{1, "phone", 0, ""})
}

// Renew renews a loan.
func (t *Tickets) Renew(ctx context.Context, in Input, s RenewSettings) error { return nil }

// RenewTwice renews a loan twice.
func (t *Tickets) RenewTwice(ctx context.Context, in Input, s RenewSettings) error { return nil }

// RenewAtMost renews a loan by the most days the tag allows.
func (t *Tickets) RenewAtMost(ctx context.Context, in Input, s RenewSettings) error { return nil }

// RenewLeftOut leaves the days out.
func (t *Tickets) RenewLeftOut(ctx context.Context, in Input, s RenewSettings) error { return nil }

// RenewInOrder gives its settings without field names.
func (t *Tickets) RenewInOrder(ctx context.Context, in Input, s RenewSettings) error { return nil }

// Search searches.
func (t *Tickets) Search(ctx context.Context, in Input, s SearchSettings) error { return nil }

// NoSettings takes only an input.
func (t *Tickets) NoSettings(ctx context.Context, in Input) error { return nil }

// WantsSettings takes settings without a WithSettings.
func (t *Tickets) WantsSettings(ctx context.Context, in Input, s SearchSettings) error { return nil }

// Find has matching settings.
func (t *Tickets) Find(ctx context.Context, in Input, s SearchSettings) error { return nil }
