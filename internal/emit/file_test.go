package emit

import (
	"maps"
	"slices"
	"testing"

	"github.com/matryer/is"
)

func TestQualifiers(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"selectors", "var x = json.RawMessage(nil)\nfunc f() { fmt.Println(tooljson.X) }\n", []string{"fmt", "json", "tooljson"}},
		{"string literal", "var s = \"uses time.Time and `regexp.Compile`\"\nvar r = `slices.Sort`\n", nil},
		{"comment", "// maps.Keys\n/* utf8.RuneLen */\nvar x = 1\n", nil},
		{"selector of a selector", "var x = a.time.Now\n", []string{"a"}},
		{"type assertion", "var y = v.(int)\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := slices.Sorted(maps.Keys(qualifiers([]byte(tt.body))))
			is.Equal(len(got), len(tt.want))
			for i := range got {
				is.Equal(got[i], tt.want[i])
			}
		})
	}
}
