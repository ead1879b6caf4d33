package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/schema"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
)

// Type constructors for the tests.

func basic(k model.Kind, bits int, goType string) *model.Type {
	return &model.Type{Kind: k, Bits: bits, GoType: goType}
}

func slice(elem *model.Type) *model.Type {
	return &model.Type{Kind: model.Slice, Elem: elem, GoType: "[]" + elem.GoType, Nullable: true}
}

func ptr(elem *model.Type) *model.Type {
	return &model.Type{Kind: model.Pointer, Elem: elem, GoType: "*" + elem.GoType, Nullable: true}
}

func ref(key string) *model.Type {
	return &model.Type{Kind: model.Named, Key: key, GoType: key[strings.LastIndexByte(key, '.')+1:]}
}

func field(goName, jsonName string, t *model.Type) *model.Field {
	return &model.Field{GoName: goName, JSONName: jsonName, Type: t, Required: true, Constraints: unset()}
}

func optional(f *model.Field) *model.Field { f.Required = false; return f }

func unset() model.Constraints {
	return model.Constraints{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}
}

func object(goType string, fields ...*model.Field) *model.Type {
	return &model.Type{Kind: model.Struct, GoType: goType, Fields: fields}
}

var (
	tString = basic(model.String, 0, "string")
	tInt    = basic(model.Int, 64, "int")
	tBool   = basic(model.Bool, 0, "bool")
)

// one wraps a single required field "v" of type t.
func one(t *model.Type) *model.Type { return object("In", field("V", "v", t)) }

// wrapped is the schema one(t) should give, with prop the schema of "v".
func wrapped(prop string) string {
	return `{"type":"object","properties":{"v":` + prop + `},"required":["v"],"additionalProperties":false}`
}

func TestInputKinds(t *testing.T) {
	status := &model.Type{Kind: model.String, GoType: "Status", Key: "x.Status", Doc: "Status is a ticket's state.",
		Enum: []string{`"open"`, `"closed"`}}
	pkg := &model.Package{Types: map[string]*model.Type{"x.Status": status}}
	tests := []struct {
		name string
		typ  *model.Type
		want string
	}{
		{"bool", tBool, `{"type":"boolean"}`},
		{"int", tInt, `{"type":"integer"}`},
		{"int8", basic(model.Int, 8, "int8"), `{"type":"integer","minimum":-128,"maximum":127}`},
		{"int16", basic(model.Int, 16, "int16"), `{"type":"integer","minimum":-32768,"maximum":32767}`},
		{"int32", basic(model.Int, 32, "int32"), `{"type":"integer","minimum":-2147483648,"maximum":2147483647}`},
		{"uint", basic(model.Uint, 64, "uint"), `{"type":"integer","minimum":0}`},
		{"uint8", basic(model.Uint, 8, "uint8"), `{"type":"integer","minimum":0,"maximum":255}`},
		{"uint32", basic(model.Uint, 32, "uint32"), `{"type":"integer","minimum":0,"maximum":4294967295}`},
		{"float64", basic(model.Float, 64, "float64"), `{"type":"number"}`},
		{"float32", basic(model.Float, 32, "float32"), `{"type":"number"}`},
		{"string", tString, `{"type":"string"}`},
		{"bytes", &model.Type{Kind: model.Bytes, GoType: "[]byte", Nullable: true},
			`{"type":["string","null"],"contentEncoding":"base64"}`},
		{"time", basic(model.Time, 0, "time.Time"), `{"type":"string","format":"date-time"}`},
		{"raw", &model.Type{Kind: model.Raw, GoType: "json.RawMessage", Nullable: true}, `{}`},
		{"slice", slice(tString), `{"type":["array","null"],"items":{"type":"string"}}`},
		{"slice of pointers", slice(ptr(tInt)), `{"type":["array","null"],"items":{"type":["integer","null"]}}`},
		{"array", &model.Type{Kind: model.Array, Elem: tInt, Len: 3, GoType: "[3]int"},
			`{"type":"array","items":{"type":"integer"},"minItems":3,"maxItems":3}`},
		{"map", &model.Type{Kind: model.Map, Elem: tInt, GoType: "map[string]int", Nullable: true},
			`{"type":["object","null"],"additionalProperties":{"type":"integer"}}`},
		{"pointer", ptr(tString), `{"type":["string","null"]}`},
		{"pointer to pointer", ptr(ptr(tBool)), `{"type":["boolean","null"]}`},
		{"enum type", ref("x.Status"), `{"type":"string","description":"Status is a ticket's state.","enum":["open","closed"]}`},
		{"nullable enum type", ptr(ref("x.Status")),
			`{"type":["string","null"],"description":"Status is a ticket's state.","enum":["open","closed",null]}`},
		{"nested struct", object("", field("A", "a", tInt), optional(field("B", "b", tString))),
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
		{"empty struct", object("struct{}"), `{"type":"object","properties":{},"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := schema.Input(pkg, one(tt.typ))
			is.NoErr(err)
			is.Equal(string(got), wrapped(tt.want))
			_, err = schematest.Compile(got)
			is.NoErr(err)
		})
	}
}

func TestInputConstraints(t *testing.T) {
	c := func(edit func(*model.Constraints)) model.Constraints {
		x := unset()
		edit(&x)
		return x
	}
	tests := []struct {
		name string
		f    *model.Field
		want string
	}{
		{"description and bounds", &model.Field{GoName: "Limit", JSONName: "limit", Type: tInt, Description: "At most this many.",
			Constraints: c(func(x *model.Constraints) { x.Minimum, x.Maximum, x.Default = "1", "100", "20" })},
			`{"type":"integer","description":"At most this many.","default":20,"minimum":1,"maximum":100}`},
		{"exclusive bounds", &model.Field{GoName: "Score", JSONName: "score", Type: basic(model.Float, 64, "float64"),
			Constraints: c(func(x *model.Constraints) { x.ExclusiveMinimum, x.ExclusiveMaximum = "0", "1.5" })},
			`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5}`},
		{"tag bound replaces the Go range", &model.Field{GoName: "N", JSONName: "n", Type: basic(model.Int, 8, "int8"),
			Constraints: c(func(x *model.Constraints) { x.Minimum = "0" })},
			`{"type":"integer","minimum":0,"maximum":127}`},
		{"string keywords", &model.Field{GoName: "Code", JSONName: "code", Type: tString,
			Constraints: c(func(x *model.Constraints) {
				x.MinLength, x.MaxLength, x.Pattern, x.Format, x.Title = 2, 8, `^[A-Z]+$`, "hostname", "Code"
				x.Examples = []string{`"AB"`, `"XYZ"`}
			})},
			`{"type":"string","title":"Code","format":"hostname","minLength":2,"maxLength":8,"pattern":"^[A-Z]+$","examples":["AB","XYZ"]}`},
		{"enum tag", &model.Field{GoName: "Sort", JSONName: "sort", Type: tString,
			Constraints: c(func(x *model.Constraints) { x.Enum = []string{`"new"`, `"old"`} })},
			`{"type":"string","enum":["new","old"]}`},
		{"enum tag on a pointer", &model.Field{GoName: "Sort", JSONName: "sort", Type: ptr(tString),
			Constraints: c(func(x *model.Constraints) { x.Enum = []string{`"new"`} })},
			`{"type":["string","null"],"enum":["new",null]}`},
		{"value keywords go to items", &model.Field{GoName: "Tags", JSONName: "tags", Type: slice(tString),
			Constraints: c(func(x *model.Constraints) {
				x.Enum, x.MaxLength, x.MinItems, x.MaxItems = []string{`"a"`, `"b"`}, 5, 1, 3
				x.Default = `["a"]`
			})},
			`{"type":["array","null"],"default":["a"],"items":{"type":"string","enum":["a","b"],"maxLength":5},"minItems":1,"maxItems":3}`},
		{"format replaces date-time", &model.Field{GoName: "At", JSONName: "at", Type: basic(model.Time, 0, "time.Time"),
			Constraints: c(func(x *model.Constraints) { x.Format = "date" })},
			`{"type":"string","format":"date"}`},
		{"string option int", &model.Field{GoName: "ID", JSONName: "id", Type: tInt, Stringify: true, Constraints: unset()},
			`{"type":"string","pattern":"^-?(0|[1-9][0-9]*)$"}`},
		{"string option bool", &model.Field{GoName: "OK", JSONName: "ok", Type: ptr(tBool), Stringify: true, Constraints: unset()},
			`{"type":["string","null"],"enum":["true","false",null]}`},
		{"escapes", &model.Field{GoName: "Q", JSONName: "q\"", Type: tString, Description: "a < b & \"c\"\n\u2028",
			Constraints: unset()},
			`{"type":"string","description":"a < b & \"c\"\n\u2028"}`},
		{"zero counts", &model.Field{GoName: "Q", JSONName: "q", Type: slice(tString), Constraints: model.Constraints{}},
			`{"type":["array","null"],"items":{"type":"string","maxLength":0},"maxItems":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.f.Required = true
			got, err := schema.Input(nil, object("In", tt.f))
			is.NoErr(err)
			var props struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			is.NoErr(json.Unmarshal(got, &props))
			is.Equal(string(props.Properties[tt.f.JSONName]), tt.want)
			_, err = schematest.Compile(got)
			is.NoErr(err)
		})
	}
}

func TestNoInput(t *testing.T) {
	is := is.New(t)
	got, err := schema.Input(nil, nil)
	is.NoErr(err)
	is.Equal(string(got), `{"type":"object","properties":{},"additionalProperties":false}`)
	_, err = schematest.Compile(got)
	is.NoErr(err)
}

// TestDefs covers named structs: inline when used once, under $defs when used twice, references for recursion.
func TestDefs(t *testing.T) {
	filter := object("Filter", field("Status", "status", tString))
	filter.Key = "x.Filter"
	node := object("Node", field("Name", "name", tString), optional(field("Children", "children", slice(ref("x.Node")))))
	node.Key = "x.Node"
	input := object("Tree", field("Root", "root", ref("x.Node")), optional(field("Next", "next", ptr(ref("x.Tree")))))
	input.Key = "x.Tree"
	pkg := &model.Package{Types: map[string]*model.Type{"x.Filter": filter, "x.Node": node, "x.Tree": input}}

	tests := []struct {
		name string
		typ  *model.Type
		want string
	}{
		{"used once is inline", object("In", field("F", "f", ref("x.Filter"))),
			`{"type":"object","properties":{"f":{"type":"object","properties":{"status":{"type":"string"}},"required":["status"],"additionalProperties":false}},"required":["f"],"additionalProperties":false}`},
		{"used twice is a def", object("In", field("A", "a", ref("x.Filter")), optional(field("B", "b", ptr(ref("x.Filter"))))),
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/Filter"},"b":{"anyOf":[{"$ref":"#/$defs/Filter"},{"type":"null"}]}},"required":["a"],"additionalProperties":false,"$defs":{"Filter":{"type":"object","properties":{"status":{"type":"string"}},"required":["status"],"additionalProperties":false}}}`},
		{"recursive", ref("x.Tree"),
			`{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"},"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["root"],"additionalProperties":false,"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":["array","null"],"items":{"$ref":"#/$defs/Node"}}},"required":["name"],"additionalProperties":false}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := schema.Input(pkg, tt.typ)
			is.NoErr(err)
			is.Equal(string(got), tt.want)
			_, err = schematest.Compile(got)
			is.NoErr(err)
		})
	}
}

func TestRecursiveValidates(t *testing.T) {
	is := is.New(t)
	node := object("Node", field("Name", "name", tString), optional(field("Children", "children", slice(ref("x.Node")))))
	node.Key = "x.Node"
	pkg := &model.Package{Types: map[string]*model.Type{"x.Node": node}}
	got, err := schema.Input(pkg, ref("x.Node"))
	is.NoErr(err)
	s, err := schematest.Compile(got)
	is.NoErr(err)
	is.NoErr(schematest.Validate(s, []byte(`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`)))
	is.True(schematest.Validate(s, []byte(`{"name":"a","children":[{"name":"b","children":[{"nam":"c"}]}]}`)) != nil)
}

func TestDefNameCollision(t *testing.T) {
	is := is.New(t)
	a := object("a.Item", field("X", "x", tInt))
	a.Key = "example.com/a.Item"
	b := object("b.Item", field("Y", "y", tInt))
	b.Key = "example.com/b.Item"
	pkg := &model.Package{Types: map[string]*model.Type{a.Key: a, b.Key: b}}
	in := object("In",
		field("A1", "a1", ref(a.Key)), field("A2", "a2", ref(a.Key)),
		field("B1", "b1", ref(b.Key)), field("B2", "b2", ref(b.Key)))
	got, err := schema.Input(pkg, in)
	is.NoErr(err)
	is.True(strings.Contains(string(got), `"example_com_a_Item":`))
	is.True(strings.Contains(string(got), `"example_com_b_Item":`))
	_, err = schematest.Compile(got)
	is.NoErr(err)
}

func TestOverrides(t *testing.T) {
	is := is.New(t)
	settings := object("SearchSettings",
		&model.Field{GoName: "IncludeClosed", JSONName: "include_closed", Type: tBool, Required: true, Constraints: unset()},
		&model.Field{GoName: "Limit", JSONName: "limit", Type: tInt, Required: true,
			Constraints: model.Constraints{Minimum: "1", Maximum: "100", MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}},
		&model.Field{GoName: "Secret", JSONName: "secret", Type: tString, Required: true, Constraints: unset()},
	)
	got, err := schema.Overrides(nil, settings, []string{"limit", "include_closed"})
	is.NoErr(err)
	is.Equal(string(got), `{"type":"object","properties":{"include_closed":{"type":"boolean"},"limit":{"type":"integer","minimum":1,"maximum":100}},"additionalProperties":false}`)
	s, err := schematest.Compile(got)
	is.NoErr(err)
	is.NoErr(schematest.Validate(s, []byte(`{"limit":5}`)))
	is.True(schematest.Validate(s, []byte(`{"secret":"x"}`)) != nil)

	got, err = schema.Overrides(nil, settings, nil)
	is.NoErr(err)
	is.Equal(string(got), `{"type":"object","properties":{},"additionalProperties":false}`)

	_, err = schema.Overrides(nil, settings, []string{"limt"})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), `"limt"`))
}

func TestOverridesOfARecursiveType(t *testing.T) {
	is := is.New(t)
	settings := object("Rules", field("Name", "name", tString), optional(field("Fallback", "fallback", ptr(ref("x.Rules")))))
	settings.Key = "x.Rules"
	pkg := &model.Package{Types: map[string]*model.Type{"x.Rules": settings}}
	got, err := schema.Overrides(pkg, ref("x.Rules"), []string{"fallback"})
	is.NoErr(err)
	is.Equal(string(got), `{"type":"object","properties":{"fallback":{"anyOf":[{"$ref":"#/$defs/Rules"},{"type":"null"}]}},"additionalProperties":false,"$defs":{"Rules":{"type":"object","properties":{"name":{"type":"string"},"fallback":{"anyOf":[{"$ref":"#/$defs/Rules"},{"type":"null"}]}},"required":["name"],"additionalProperties":false}}}`)
	s, err := schematest.Compile(got)
	is.NoErr(err)
	is.NoErr(schematest.Validate(s, []byte(`{"fallback":{"name":"a","fallback":{"name":"b"}}}`)))
	is.True(schematest.Validate(s, []byte(`{"fallback":{"fallback":null}}`)) != nil) // name is required inside
}

func TestErrors(t *testing.T) {
	chanT := &model.Type{Kind: model.Invalid, GoType: "chan int"}
	c := unset()
	c.Minimum = "one"
	tests := []struct {
		name, want string
		typ        *model.Type
	}{
		{"unknown kind", "In.Filter.Ch (chan int): no JSON Schema",
			object("In", field("Filter", "filter", object("Filter", field("Ch", "ch", chanT))))},
		{"in a slice", "In.List[] (chan int)", object("In", field("List", "list", slice(chanT)))},
		{"missing named type", "In.F (Missing): named type \"x.Missing\" is not in the package's type table",
			object("In", field("F", "f", ref("x.Missing")))},
		{"bad minimum", "In.N (int): minimum: \"one\" is not a JSON value",
			object("In", &model.Field{GoName: "N", JSONName: "n", Type: tInt, Constraints: c})},
		{"not a struct", "a tool's input and settings must be structs", tString},
		{"duplicate json name", "a second field has the JSON name \"a\"",
			object("In", field("A", "a", tInt), field("B", "a", tInt))},
		{"string option on string", "the ,string option on a string field",
			object("In", &model.Field{GoName: "S", JSONName: "s", Type: tString, Stringify: true})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := schema.Input(&model.Package{}, tt.typ)
			is.True(err != nil)
			var se *schema.Error
			is.True(errors.As(err, &se))
			is.True(strings.Contains(err.Error(), tt.want)) // the message names the path
		})
	}
}

// TestStable checks that the output does not depend on map order.
func TestStable(t *testing.T) {
	is := is.New(t)
	var types = map[string]*model.Type{}
	in := object("In")
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		s := object(n, field("X", "x", tInt))
		s.Key = "x." + n
		types[s.Key] = s
		in.Fields = append(in.Fields, field(n+"1", n+"1", ref(s.Key)), field(n+"2", n+"2", ref(s.Key)))
	}
	pkg := &model.Package{Types: types}
	first, err := schema.Input(pkg, in)
	is.NoErr(err)
	for range 20 {
		again, err := schema.Input(pkg, in)
		is.NoErr(err)
		is.Equal(string(again), string(first))
	}
	_, err = schematest.Compile(first)
	is.NoErr(err)
}
