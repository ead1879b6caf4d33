// Package jsondiff lists the places where two decoded JSON values differ, for the messages of the cassettes and
// the recorded-exchange replays, which compare what a client sent with what was recorded.
package jsondiff

import (
	"sort"
	"strconv"
)

// Difference is one place where two values differ: its path (keys joined by ".", indexes in brackets) and each
// side's value as show wrote it, "" where that side has none.
type Difference struct {
	Path string
	A, B string
}

// Diff appends to out the places under path where a and b, values as encoding/json decodes them into an any,
// differ, in key order, until out holds limit of them. show writes a value for a message.
func Diff(path string, a, b any, limit int, show func(any) string, out []Difference) []Difference {
	if len(out) >= limit {
		return out
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			xa, inA := x[k]
			yb, inB := y[k]
			switch {
			case !inA:
				out = append(out, Difference{Path: p, B: show(yb)})
			case !inB:
				out = append(out, Difference{Path: p, A: show(xa)})
			default:
				out = Diff(p, xa, yb, limit, show, out)
			}
			if len(out) >= limit {
				return out
			}
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(x), len(y)) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(x):
				out = append(out, Difference{Path: p, B: show(y[i])})
			case i >= len(y):
				out = append(out, Difference{Path: p, A: show(x[i])})
			default:
				out = Diff(p, x[i], y[i], limit, show, out)
			}
			if len(out) >= limit {
				return out
			}
		}
		return out
	}
	if sa, sb := show(a), show(b); sa != sb {
		out = append(out, Difference{Path: path, A: sa, B: sb})
	}
	return out
}
