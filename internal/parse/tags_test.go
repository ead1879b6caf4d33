package parse

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/internal/model"
)

var (
	stringType = &model.Type{Kind: model.String, GoType: "string"}
	intType    = &model.Type{Kind: model.Int, Bits: 64, GoType: "int"}
	int8Type   = &model.Type{Kind: model.Int, Bits: 8, GoType: "int8"}
	uintType   = &model.Type{Kind: model.Uint, Bits: 64, GoType: "uint"}
	floatType  = &model.Type{Kind: model.Float, Bits: 64, GoType: "float64"}
	boolType   = &model.Type{Kind: model.Bool, GoType: "bool"}
	strings_   = &model.Type{Kind: model.Slice, GoType: "[]string", Elem: stringType}
	intPtr     = &model.Type{Kind: model.Pointer, GoType: "*int", Elem: intType}
)

func TestSchemaTag(t *testing.T) {
	for _, tc := range []struct {
		tag     string
		typ     *model.Type
		check   func(is *is.I, c model.Constraints, desc string, req *bool)
		problem string
	}{
		{tag: "", typ: stringType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.MinLength, -1)
			is.Equal(c.MaxItems, -1)
		}},
		{tag: `description=Words\, in order,title=Query`, typ: stringType, check: func(is *is.I, c model.Constraints, desc string, _ *bool) {
			is.Equal(desc, "Words, in order")
			is.Equal(c.Title, "Query")
		}},
		{tag: "enum=open,enum=closed,default=open,example=open", typ: stringType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Enum, []string{`"open"`, `"closed"`})
			is.Equal(c.Default, `"open"`)
			is.Equal(c.Examples, []string{`"open"`})
		}},
		{tag: "minimum=1,maximum=100,exclusiveMinimum=0,exclusiveMaximum=101", typ: intType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Minimum, "1")
			is.Equal(c.Maximum, "100")
			is.Equal(c.ExclusiveMinimum, "0")
			is.Equal(c.ExclusiveMaximum, "101")
		}},
		{tag: "minimum=0.5,default=1e3", typ: floatType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Minimum, "0.5")
			is.Equal(c.Default, "1e3")
		}},
		{tag: "minimum=1", typ: intPtr, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Minimum, "1") // through the pointer
		}},
		{tag: "minItems=1,maxItems=3,enum=a,maxLength=4", typ: strings_, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.MinItems, 1)
			is.Equal(c.MaxItems, 3)
			is.Equal(c.Enum, []string{`"a"`}) // for the items
			is.Equal(c.MaxLength, 4)
		}},
		{tag: "pattern=^[a-z]+$,format=email,minLength=2,maxLength=8", typ: stringType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Pattern, "^[a-z]+$")
			is.Equal(c.Format, "email")
		}},
		{tag: "required", typ: intPtr, check: func(is *is.I, _ model.Constraints, _ string, req *bool) {
			is.True(req != nil && *req)
		}},
		{tag: "omitempty", typ: intType, check: func(is *is.I, _ model.Constraints, _ string, req *bool) {
			is.True(req != nil && !*req)
		}},
		{tag: "default=true", typ: boolType, check: func(is *is.I, c model.Constraints, _ string, _ *bool) {
			is.Equal(c.Default, "true")
		}},
		{tag: "minimun=1", typ: intType, problem: `unknown key "minimun"; did you mean minimum?; known keys: description`},
		{tag: "colour=blue", typ: intType, problem: `unknown key "colour"; known keys: description`},
		{tag: "minimum=1", typ: stringType, problem: "minimum applies to numbers, not string"},
		{tag: "minimum=1.5", typ: intType, problem: "minimum=1.5 does not fit int"},
		{tag: "maximum=300", typ: int8Type, problem: "maximum=300 does not fit int8"},
		{tag: "minimum=-1", typ: uintType, problem: "minimum=-1 does not fit uint"},
		{tag: "minimum=0x10", typ: intType, problem: "minimum=0x10 is not a number"},
		{tag: "minLength=2", typ: intType, problem: "minLength applies to strings, not int"},
		{tag: "minLength=-1", typ: stringType, problem: "minLength=-1 is not a non-negative integer"},
		{tag: "minLength=5,maxLength=2", typ: stringType, problem: "minLength is greater than maxLength"},
		{tag: "minItems=1", typ: stringType, problem: "minItems applies to slices, not string"},
		{tag: "maxItems=3", typ: &model.Type{Kind: model.Array, GoType: "[2]int", Elem: intType, Len: 2}, problem: "maxItems applies to slices, not to the array [2]int, which always has 2 items"},
		{tag: "pattern=[a-", typ: stringType, problem: `pattern "[a-" does not compile`},
		{tag: "default=yes", typ: boolType, problem: "default=yes is not a boolean"},
		{tag: "default=a", typ: strings_, problem: "default applies to strings, numbers and booleans, not []string"},
		{tag: "title", typ: stringType, problem: `"title" needs a value`},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			is := is.New(t)
			p := &parser{}
			c, desc, req, problem := p.schemaTag(tc.tag, tc.typ)
			if tc.problem != "" {
				is.True(strings.HasPrefix(problem, tc.problem)) // the problem says what to fix
				return
			}
			is.Equal(problem, "")
			tc.check(is, c, desc, req)
		})
	}
}

// FuzzSchemaTag checks that no tag makes the tag reader panic, and that what it accepts is consistent.
func FuzzSchemaTag(f *testing.F) {
	for _, seed := range []string{"minimum=1,maximum=2", `description=a\,b`, "enum=a,enum=b", "pattern=(", "minLength=9999999999999999999", "required,", `\`, "=,="} {
		f.Add(seed)
	}
	types := []*model.Type{stringType, intType, int8Type, uintType, floatType, boolType, strings_, intPtr}
	f.Fuzz(func(t *testing.T, tag string) {
		p := &parser{}
		for _, typ := range types {
			c, _, _, problem := p.schemaTag(tag, typ)
			if problem != "" {
				continue
			}
			if c.MinLength >= 0 && c.MaxLength >= 0 && c.MinLength > c.MaxLength {
				t.Fatalf("%q: accepted minLength %d > maxLength %d", tag, c.MinLength, c.MaxLength)
			}
			for _, lit := range append(append([]string{c.Default}, c.Enum...), c.Minimum, c.Maximum) {
				if lit != "" && !jsonLiteral(lit) {
					t.Fatalf("%q: %q is not a JSON literal", tag, lit)
				}
			}
		}
	})
}

// jsonLiteral reports whether s is a JSON string, number or boolean literal.
func jsonLiteral(s string) bool {
	return s == "true" || s == "false" || jsonNumber.MatchString(s) || strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`)
}

func TestValidJSONName(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]bool{"": true, "query": true, "a-b.c": true, "größe": true, "a b": true, `a"b`: false, `a\b`: false, "a\tb": false, "a'b": false} {
		is.Equal(validJSONName(name), want)
	}
}

func TestTagConflict(t *testing.T) {
	level := &model.Type{Kind: model.String, GoType: "Level", Enum: []string{`"low"`, `"high"`}}
	for _, tc := range []struct {
		tag       string
		typ       *model.Type
		stringify bool
		want      string // a prefix; "" for no conflict
	}{
		{"minimum=1,maximum=100,default=20", intType, false, ""},
		{"minimum=100,maximum=1", intType, false, "minimum 100 is greater than maximum 1"},
		{"minimum=1,maximum=1", intType, false, ""},
		{"exclusiveMinimum=1,exclusiveMaximum=1", floatType, false, "exclusiveMinimum 1 is not less than exclusiveMaximum 1"},
		{"minimum=1,exclusiveMaximum=1", floatType, false, "minimum 1 is not less than exclusiveMaximum 1"},
		{"exclusiveMinimum=2,maximum=1.5", floatType, false, "exclusiveMinimum 2 is not less than maximum 1.5"},
		{"minimum=0.1,default=0.09999999999999999999", floatType, false, "default 0.09999999999999999999 is below minimum 0.1"},
		{"exclusiveMinimum=0,default=0", floatType, false, "default 0 is not above exclusiveMinimum 0"},
		{"maximum=5,default=6", intPtr, false, "default 6 is above maximum 5"},
		{"enum=a,enum=b,default=c", stringType, false, `default "c" is not one of the enum values "a", "b"`},
		{"enum=a,enum=b,default=b", stringType, false, ""},
		{"minLength=3,default=ab", stringType, false, `default "ab" is shorter than minLength 3`},
		{"maxLength=2,default=abc", stringType, false, `default "abc" is longer than maxLength 2`},
		{"pattern=^[a-z]+$,default=A1", stringType, false, `default "A1" does not match the pattern`},
		{"maxLength=2,enum=abc", stringType, false, `enum value "abc" is longer than maxLength 2`},
		{"minimum=3,enum=1,enum=5", intType, false, "enum value 1 is below minimum 3"},
		{"default=medium", level, false, `default "medium" is not a value of Level`},
		{"enum=low,enum=urgent", level, false, `enum value "urgent" is not a value of Level`},
		{"enum=low", level, false, ""},
		{"enum=1", intType, true, "enum and default cannot apply to a field with the ,string option"},
		{"default=1", intType, true, "enum and default cannot apply"},
		{"minimum=1", intType, true, ""},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			is := is.New(t)
			p := &parser{}
			c, _, _, problem := p.schemaTag(tc.tag, tc.typ)
			if problem != "" {
				t.Skipf("the tag does not read: %s", problem)
			}
			got := tagConflict(c, tc.typ, tc.stringify)
			if tc.want == "" {
				is.Equal(got, "")
				return
			}
			is.True(strings.HasPrefix(got, tc.want)) // got says what conflicts
		})
	}
}
