package benchdata_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/toolset/internal/benchdata"
)

// The two paths the generated code is measured against: encoding/json with the schema's checks written by
// hand, and jsonschema/v6 validation of the same schema before encoding/json.

// searchWire is SearchArgs with a pointer where encoding/json must tell "missing" from "zero".
type searchWire struct {
	Query         *string           `json:"query"`
	Limit         *int              `json:"limit"`
	IncludeClosed bool              `json:"include_closed"`
	Filter        *benchdata.Filter `json:"filter"`
	Since         json.RawMessage   `json:"since"`
	Tags          []string          `json:"tags"`
}

// decodeByHand decodes and checks the search arguments as the schema says, with encoding/json.
func decodeByHand(args []byte) (benchdata.SearchArgs, error) {
	var w searchWire
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return benchdata.SearchArgs{}, err
	}
	if dec.More() {
		return benchdata.SearchArgs{}, fmt.Errorf("unexpected data after the arguments")
	}
	if w.Query == nil {
		return benchdata.SearchArgs{}, fmt.Errorf(`missing required property "query"`)
	}
	in := benchdata.SearchArgs{Query: *w.Query, Limit: 20, IncludeClosed: w.IncludeClosed, Filter: w.Filter, Tags: w.Tags}
	if w.Limit != nil {
		in.Limit = *w.Limit
		if in.Limit < 1 || in.Limit > 100 {
			return benchdata.SearchArgs{}, fmt.Errorf(`"limit" must be between 1 and 100, got %d`, in.Limit)
		}
	}
	for i, s := range filterStatuses(w.Filter) {
		if !slices.Contains([]benchdata.Status{benchdata.StatusOpen, benchdata.StatusPending, benchdata.StatusClosed}, s) {
			return benchdata.SearchArgs{}, fmt.Errorf(`"filter.statuses[%d]" must be one of open, pending, closed`, i)
		}
	}
	if len(w.Since) > 0 && string(w.Since) != "null" {
		if err := json.Unmarshal(w.Since, &in.Since); err != nil {
			return benchdata.SearchArgs{}, err
		}
	}
	return in, nil
}

// invokeByHand is the whole call written by hand with encoding/json.
func invokeByHand(ctx context.Context, s *benchdata.Search, args []byte) ([]byte, error) {
	in, err := decodeByHand(args)
	if err != nil {
		return nil, err
	}
	res, err := s.SearchTickets(ctx, in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// validated is the call with jsonschema/v6 validation of the generated schema before encoding/json.
type validated struct {
	schema *jsonschema.Schema
}

func newValidated(schemaJSON []byte) (*validated, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://search.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("mem://search.json")
	if err != nil {
		return nil, err
	}
	return &validated{schema: s}, nil
}

func (v *validated) invoke(ctx context.Context, s *benchdata.Search, args []byte) ([]byte, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, err
	}
	if err := v.schema.Validate(doc); err != nil {
		return nil, err
	}
	in := benchdata.SearchArgs{Limit: 20} // the schema's default
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	res, err := s.SearchTickets(ctx, in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func filterStatuses(f *benchdata.Filter) []benchdata.Status {
	if f == nil {
		return nil
	}
	return f.Statuses
}
