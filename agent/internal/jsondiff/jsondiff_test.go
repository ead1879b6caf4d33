package jsondiff

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name, path, a, b string
		limit            int
		want             []Difference
	}{
		{"equal", "", `{"a":[1,{"b":2}]}`, `{"a":[1,{"b":2}]}`, 10, nil},
		{"key only in a, at the root", "", `{"a":1,"b":2}`, `{"b":2}`, 10, []Difference{{Path: "a", A: "1"}}},
		{"key only in b, under a path", "body", `{}`, `{"c":true}`, 10, []Difference{{Path: "body.c", B: "true"}}},
		{"element and value", "", `{"x":[1,2]}`, `{"x":[1,3,4]}`, 10,
			[]Difference{{Path: "x[1]", A: "2", B: "3"}, {Path: "x[2]", B: "4"}}},
		{"types differ", "", `{"x":{"y":1}}`, `{"x":[1]}`, 10, []Difference{{Path: "x", A: `{"y":1}`, B: "[1]"}}},
		{"keys in order, cut at the limit", "", `{"c":1,"a":1,"b":1}`, `{}`, 2,
			[]Difference{{Path: "a", A: "1"}, {Path: "b", A: "1"}}},
		{"no room left", "", `1`, `2`, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := Diff(tt.path, decode(t, tt.a), decode(t, tt.b), tt.limit, show, nil)
			is.Equal(got, tt.want)
		})
	}
}
