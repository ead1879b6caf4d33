package benchdata_test

import (
	"context"
	"errors"
	"strings"

	"github.com/typeshift-go/typeshift/toolset/internal/benchdata"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// The physical limit of the call: a decoder and an appender written by hand for this one tool, in a single pass
// over the arguments and the result, with the same checks and the same output as the generated code and nothing
// a generator needs to stay general (no per-field bit sets beyond the two the checks need, no error paths that
// are not taken). The generated code is measured against it.

// decodeLimit reads the search arguments in one pass.
func decodeLimit(args []byte, in *benchdata.SearchArgs) error {
	d := tooljson.NewDecoder(args)
	var seen uint8
	if d.Object() {
		for {
			key, ok := d.Field()
			if !ok {
				break
			}
			switch string(key) {
			case "query":
				in.Query = d.String()
				seen |= 1
			case "limit":
				in.Limit = int(d.Int(64))
				if in.Limit < 1 || in.Limit > 100 {
					d.Failf("must be between 1 and 100, got %d", in.Limit)
				}
				seen |= 2
			case "include_closed":
				in.IncludeClosed = d.Bool()
			case "filter":
				if d.Null() {
					in.Filter = nil
					break
				}
				in.Filter = new(benchdata.Filter)
				decodeFilterLimit(&d, in.Filter)
			case "since":
				in.Since = d.Time()
			case "tags":
				if d.Null() {
					in.Tags = nil
				} else if d.Array() {
					tags := make([]string, 0, 4)
					for d.Elem() {
						tags = append(tags, d.String())
					}
					in.Tags = tags
				}
			default:
				d.Unknown(key, "query, limit, include_closed, filter, since, tags")
			}
		}
		if seen&1 == 0 {
			d.Missing("query")
		}
		if seen&2 == 0 {
			in.Limit = 20
		}
	}
	d.End()
	return d.Err()
}

func decodeFilterLimit(d *tooljson.Decoder, f *benchdata.Filter) {
	if !d.Object() {
		return
	}
	for {
		key, ok := d.Field()
		if !ok {
			return
		}
		switch string(key) {
		case "statuses":
			if d.Null() {
				f.Statuses = nil
			} else if d.Array() {
				st := make([]benchdata.Status, 0, 4)
				for d.Elem() {
					switch string(d.StringBytes()) {
					case "open":
						st = append(st, benchdata.StatusOpen)
					case "pending":
						st = append(st, benchdata.StatusPending)
					case "closed":
						st = append(st, benchdata.StatusClosed)
					default:
						d.Failf("must be one of open, pending, closed")
					}
				}
				f.Statuses = st
			}
		case "assignee":
			f.Assignee = d.String()
		default:
			d.Unknown(key, "statuses, assignee")
		}
	}
}

// appendLimit writes the tickets as json.Marshal does.
func appendLimit(b []byte, ts []benchdata.Ticket) ([]byte, error) {
	if ts == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range ts {
		t := &ts[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"number":`...)
		b = tooljson.AppendInt(b, int64(t.Number))
		b = append(b, `,"title":`...)
		b = tooljson.AppendString(b, t.Title)
		b = append(b, `,"status":`...)
		b = tooljson.AppendString(b, string(t.Status))
		b = append(b, `,"opened":`...)
		if !tooljson.TimeOK(t.Opened) {
			return nil, errors.New("json: time cannot be written as RFC 3339")
		}
		b = tooljson.AppendTime(b, t.Opened)
		b = append(b, `,"tags":`...)
		if t.Tags == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, tag := range t.Tags {
				if j > 0 {
					b = append(b, ',')
				}
				b = tooljson.AppendString(b, tag)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// invokeLimit is the whole call at the physical limit: decode, call, append into a buffer sized for the result.
func invokeLimit(ctx context.Context, s *benchdata.Search, args []byte) ([]byte, error) {
	var in benchdata.SearchArgs
	if err := decodeLimit(args, &in); err != nil {
		return nil, err
	}
	res, err := s.SearchTickets(ctx, in)
	if err != nil {
		return nil, err
	}
	return appendLimit(make([]byte, 0, 1024), res)
}

// bigArgs are arguments of about 64 KB: benchArgs with a long list of tags.
var bigArgs = func() []byte {
	var sb strings.Builder
	sb.WriteString(`{"query":"printer toner","limit":10,"include_closed":true,` +
		`"filter":{"statuses":["open","pending"],"assignee":"kim"},"since":"2026-03-01T00:00:00Z","tags":[`)
	for i := 0; sb.Len() < 64<<10-32; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"hardware-printer"`)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}()
