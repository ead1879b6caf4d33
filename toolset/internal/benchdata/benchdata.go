// Package benchdata holds the toolsets that the invoke benchmark and the differential tests run through
// generated code: a realistic search tool, and a tool whose input covers every kind of field the generator
// decodes. Nothing outside the tests uses it.
package benchdata

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"encoding/json"
	"time"

	"github.com/typeshift-go/typeshift/toolset"
)

// Search is the toolset of the benchmark: one tool that takes typical arguments and returns five tickets.
type Search struct {
	toolset.Toolset
	// Results are what every search returns, up to its limit.
	Results []Ticket
}

// Declare registers the search tool.
func (s *Search) Declare() {
	s.AddTool(s.SearchTickets).ReadOnly()
}

// Status is a ticket's state.
//
//typeshift:enum
type Status string

// The states a ticket can be in.
const (
	StatusOpen    Status = "open"
	StatusPending Status = "pending"
	StatusClosed  Status = "closed"
)

// SearchArgs are the search tool's arguments: a required string, an integer with a default and a range, a
// boolean, a nested object with an array of enumerated values, a date and an array of strings.
type SearchArgs struct {
	// Words the ticket's title contains.
	Query string `json:"query"`
	// The most tickets to return.
	Limit int `json:"limit" jsonschema:"minimum=1,maximum=100,default=20"`
	// Whether closed tickets count.
	IncludeClosed bool `json:"include_closed,omitempty"`
	// Which tickets to consider.
	Filter *Filter `json:"filter,omitempty"`
	// Only tickets opened at or after this time.
	Since time.Time `json:"since,omitzero"`
	// Tickets carrying all of these tags.
	Tags []string `json:"tags,omitempty"`
}

// Filter narrows a search.
type Filter struct {
	// Tickets in any of these states.
	Statuses []Status `json:"statuses,omitempty"`
	// The login of the person the ticket is assigned to.
	Assignee string `json:"assignee,omitempty"`
}

// Ticket is one result.
type Ticket struct {
	Number int       `json:"number"`
	Title  string    `json:"title"`
	Status Status    `json:"status"`
	Opened time.Time `json:"opened"`
	Tags   []string  `json:"tags"`
}

// SearchTickets searches the tickets, newest first.
func (s *Search) SearchTickets(ctx context.Context, in SearchArgs) ([]Ticket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Results[:min(in.Limit, len(s.Results))], nil
}

// SampleResults returns the five tickets the benchmark's search returns.
func SampleResults() []Ticket {
	at := time.Date(2026, time.March, 12, 9, 30, 0, 0, time.UTC)
	return []Ticket{
		{Number: 4711, Title: "Printer prints blank pages", Status: StatusOpen, Opened: at, Tags: []string{"hardware", "printer"}},
		{Number: 4712, Title: "Invoice shows the wrong address", Status: StatusPending, Opened: at.Add(-time.Hour), Tags: []string{"billing"}},
		{Number: 4713, Title: "Printer jams on envelopes", Status: StatusClosed, Opened: at.Add(-26 * time.Hour), Tags: []string{"hardware"}},
		{Number: 4714, Title: "Cannot log in after a password reset", Status: StatusOpen, Opened: at.Add(-50 * time.Hour), Tags: []string{"account", "urgent"}},
		{Number: 4715, Title: "Export to \"CSV\" drops accents: é, ü", Status: StatusOpen, Opened: at.Add(-75 * time.Hour), Tags: []string{}},
	}
}

// Fixtures is the toolset of the differential tests. Its tools keep the input they decoded, so that tests can
// compare it with what encoding/json decodes.
type Fixtures struct {
	toolset.Toolset
	// LastSink and LastSearch are the inputs of the latest calls.
	LastSink   Sink
	LastSearch SearchArgs
}

// Declare registers the fixture tools.
func (f *Fixtures) Declare() {
	f.AddTool(f.Record)
	f.AddTool(f.RecordSearch)
}

// Record keeps its input.
func (f *Fixtures) Record(in Sink) error {
	f.LastSink = in
	return nil
}

// RecordSearch keeps its input.
func (f *Fixtures) RecordSearch(in SearchArgs) error {
	f.LastSearch = in
	return nil
}

// Sink has a field of each kind the generator decodes.
type Sink struct {
	// A required string.
	S string `json:"s"`
	// Small integers, with their Go ranges.
	I8  int8   `json:"i8,omitempty"`
	U16 uint16 `json:"u16,omitempty"`
	// An integer in a range.
	I int `json:"i,omitempty" jsonschema:"minimum=-5,maximum=5"`
	// Floats; f must be positive.
	F   float64 `json:"f,omitempty" jsonschema:"exclusiveMinimum=0"`
	F32 float32 `json:"f32,omitempty"`
	// Pointers accept null.
	B *bool   `json:"b,omitempty"`
	P *string `json:"p"`
	// Bytes are base64.
	Bytes []byte `json:"bytes,omitempty"`
	// At is a date-time.
	At time.Time `json:"at,omitzero"`
	// Raw takes any value.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Pair is a fixed-length array.
	Pair [2]int `json:"pair,omitzero"`
	// Counts maps names to numbers.
	Counts map[string]int `json:"counts,omitempty"`
	// Nested is an optional object, and List a list of them.
	Nested *Inner  `json:"nested,omitempty"`
	List   []Inner `json:"list,omitempty"`
	// Code is two to four capital letters.
	Code string `json:"code,omitempty" jsonschema:"minLength=2,maxLength=4,pattern=^[A-Z]+$"`
	// Level is enumerated.
	Level Status `json:"level,omitempty"`
}

// Inner is a nested object.
type Inner struct {
	// Name is required.
	Name string `json:"name"`
	// Tags has at most two items.
	Tags []string `json:"tags,omitempty" jsonschema:"maxItems=2"`
}
