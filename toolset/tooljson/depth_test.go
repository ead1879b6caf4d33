package tooljson

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestDeepNesting feeds values nested far past MaxDepth, down to where
// encoding/json gives up, through every path that reads nesting: the message
// names the depth limit and the offset where it was passed, whatever the
// shape, and never a syntax error further on.
func TestDeepNesting(t *testing.T) {
	const want = "nested too deeply (more than 64 levels)"
	shapes := []struct {
		name string
		make func(n int) string
	}{
		{"arrays", func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }},
		{"objects", func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }},
		{"mixed", func(n int) string { return strings.Repeat(`{"a":[`, (n+1)/2) + "1" + strings.Repeat("]}", (n+1)/2) }},
		{"unclosed", func(n int) string { return strings.Repeat("[", n) }},
	}
	for _, depth := range []int{MaxDepth + 1, 9999, 10000, 10001, 100000} {
		for _, sh := range shapes {
			in := sh.make(depth)
			t.Run(sh.name+"/"+itoa(depth), func(t *testing.T) {
				is := is.New(t)
				err := Check([]byte(in))
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), want)) // the depth limit's message
				is.True(strings.Contains(err.Error(), "invalid JSON at offset "))

				// Inside an object read by generated code, as a raw field.
				d := NewDecoder([]byte(`{"n":` + in + `}`))
				if d.Object() {
					for {
						key, ok := d.Field()
						if !ok {
							break
						}
						_ = key
						d.Raw()
					}
				}
				d.End()
				is.True(d.Err() != nil && strings.Contains(d.Err().Error(), want))
				is.Equal(d.err.Path, "n")

				// And with Fallback, which hands the value to encoding/json.
				d = NewDecoder([]byte(in))
				var v any
				d.Fallback(&v)
				is.True(d.Err() != nil && strings.Contains(d.Err().Error(), want))
			})
		}
	}
	is := is.New(t)
	is.NoErr(Check([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)))) // the limit itself is fine
	var v any
	is.True(json.Unmarshal([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)), &v) != nil) // where encoding/json stops
}

func itoa(n int) string { return strconv.Itoa(n) }
