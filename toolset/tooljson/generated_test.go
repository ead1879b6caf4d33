package tooljson

import (
	"encoding/json"
	"time"
)

// This file holds a decoder and an encoder written by hand the way the
// generator emits them; tests and benchmarks use them as a realistic caller.

type searchArgs struct {
	Query  string          `json:"query"`
	Limit  int             `json:"limit,omitempty"`
	Filter *searchFilter   `json:"filter,omitempty"`
	Tags   []string        `json:"tags,omitempty"`
	Since  time.Time       `json:"since"`
	Score  float64         `json:"score,omitempty"`
	Exact  bool            `json:"exact,omitempty"`
	Extra  json.RawMessage `json:"extra,omitempty"`
}

type searchFilter struct {
	Status      string   `json:"status"`
	Labels      []string `json:"labels,omitempty"`
	MinPriority int8     `json:"min_priority,omitempty"`
	Owner       uint32   `json:"owner,omitempty"`
}

// decodeSearchArgs is shaped like generated code: required query and since,
// limit in [1, 100], status one of open, pending, closed.
func decodeSearchArgs(data []byte, x *searchArgs) error {
	d := NewDecoder(data)
	var seen uint8
	if d.Object() {
		for {
			key, ok := d.Field()
			if !ok {
				break
			}
			switch string(key) {
			case "query":
				x.Query = d.String()
				seen |= 1
			case "limit":
				if !d.Null() {
					x.Limit = int(d.Int(64))
					if x.Limit < 1 {
						d.Failf("must be at least 1, got %d", x.Limit)
					} else if x.Limit > 100 {
						d.Failf("must be at most 100, got %d", x.Limit)
					}
				}
			case "filter":
				if !d.Null() {
					x.Filter = new(searchFilter)
					decodeSearchFilter(&d, x.Filter)
				}
			case "tags":
				if !d.Null() && d.Array() {
					x.Tags = x.Tags[:0]
					for d.Elem() {
						x.Tags = append(x.Tags, d.String())
					}
				}
			case "since":
				x.Since = d.Time()
				seen |= 2
			case "score":
				if !d.Null() {
					x.Score = d.Float(64)
				}
			case "exact":
				if !d.Null() {
					x.Exact = d.Bool()
				}
			case "extra":
				x.Extra = d.Raw()
			default:
				d.Unknown(key, "query, limit, filter, tags, since, score, exact, extra")
			}
		}
		if seen&1 == 0 {
			d.Missing("query")
		}
		if seen&2 == 0 {
			d.Missing("since")
		}
	}
	d.End()
	return d.Err()
}

func decodeSearchFilter(d *Decoder, x *searchFilter) {
	var seen uint8
	if !d.Object() {
		return
	}
	for {
		key, ok := d.Field()
		if !ok {
			break
		}
		switch string(key) {
		case "status":
			x.Status = d.String()
			seen |= 1
			switch x.Status {
			case "open", "pending", "closed":
			default:
				d.Failf("must be one of open, pending, closed")
			}
		case "labels":
			if !d.Null() && d.Array() {
				for d.Elem() {
					x.Labels = append(x.Labels, d.String())
				}
			}
		case "min_priority":
			if !d.Null() {
				x.MinPriority = int8(d.Int(8))
			}
		case "owner":
			if !d.Null() {
				x.Owner = uint32(d.Uint(32))
			}
		default:
			d.Unknown(key, "status, labels, min_priority, owner")
		}
	}
	if seen&1 == 0 {
		d.Missing("status")
	}
}

// appendSearchArgs is shaped like a generated encoder.
func appendSearchArgs(b []byte, x *searchArgs) []byte {
	b = append(b, `{"query":`...)
	b = AppendString(b, x.Query)
	if x.Limit != 0 {
		b = append(b, `,"limit":`...)
		b = AppendInt(b, int64(x.Limit))
	}
	if x.Filter != nil {
		b = append(b, `,"filter":{"status":`...)
		b = AppendString(b, x.Filter.Status)
		if len(x.Filter.Labels) != 0 {
			b = append(b, `,"labels":[`...)
			for i, l := range x.Filter.Labels {
				if i > 0 {
					b = append(b, ',')
				}
				b = AppendString(b, l)
			}
			b = append(b, ']')
		}
		if x.Filter.MinPriority != 0 {
			b = append(b, `,"min_priority":`...)
			b = AppendInt(b, int64(x.Filter.MinPriority))
		}
		if x.Filter.Owner != 0 {
			b = append(b, `,"owner":`...)
			b = AppendUint(b, uint64(x.Filter.Owner))
		}
		b = append(b, '}')
	}
	if len(x.Tags) != 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range x.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"since":`...)
	b = AppendTime(b, x.Since)
	if x.Score != 0 {
		b = append(b, `,"score":`...)
		b = AppendFloat(b, x.Score, 64)
	}
	if x.Exact {
		b = append(b, `,"exact":`...)
		b = AppendBool(b, x.Exact)
	}
	if len(x.Extra) != 0 {
		b = append(b, `,"extra":`...)
		b = AppendRaw(b, x.Extra)
	}
	return append(b, '}')
}
