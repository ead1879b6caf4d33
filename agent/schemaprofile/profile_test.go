package schemaprofile_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

func TestAdapt(t *testing.T) {
	tests := []struct {
		name    string
		profile *schemaprofile.Profile
		schema  string
		want    string // the adapted schema, or "" when an error is wanted
		err     string // the error's field and a word of its reason
	}{
		{"strict: optional fields become nullable", schemaprofile.OpenAIStrict,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","default":3},"c":{"enum":["x","y"],"type":"string"},"d":{"$ref":"#/$defs/P","description":"A point."},"e":{"anyOf":[{"type":"string"},{"type":"integer"}]},"f":{"const":"k","type":"string"}},"required":["a"],"additionalProperties":false,"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"],"description":"Default: 3."},"c":{"enum":["x","y",null],"type":["string","null"]},"d":{"description":"A point.","anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]},"e":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"f":{"type":["string","null"],"enum":["k",null]}},"required":["a","b","c","d","e","f"],"additionalProperties":false,"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}}}`, ""},
		{"strict: unsupported keywords move into descriptions", schemaprofile.OpenAIStrict,
			`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":5,"format":"uri","x-extra":1},"l":{"type":"array","items":{"type":"integer"},"uniqueItems":true}},"required":["s","l"]}`,
			`{"type":"object","properties":{"s":{"type":"string","description":"At least 2 characters. At most 5 characters. Format: uri."},"l":{"type":"array","items":{"type":"integer"},"description":"Items must be unique: true."}},"required":["s","l"],"additionalProperties":false}`, ""},
		{"strict: a map", schemaprofile.OpenAIStrict, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "", "m: an object whose keys are not declared"},
		{"strict: any value", schemaprofile.OpenAIStrict, `{"type":"object","properties":{"w":{"type":"object","properties":{"v":{}}}}}`, "", "w.v: a value of any type"},
		{"strict: allOf", schemaprofile.OpenAIStrict, `{"type":"object","properties":{"v":{"allOf":[{"type":"string"}]}}}`, "", "v: strict mode has no allOf"},
		{"strict: root not an object", schemaprofile.OpenAIStrict, `{"anyOf":[{"type":"object"}]}`, "", ": strict mode wants an object"},
		{"strict: missing definition", schemaprofile.OpenAIStrict, `{"type":"object","properties":{"v":{"$ref":"#/$defs/Nope"}},"required":["v"]}`, "", "v: a reference to a missing definition"},
		{"gemini: optional stays optional", schemaprofile.Gemini,
			`{"type":"object","properties":{"a":{"type":"string","pattern":"^a+$","default":"aa"},"n":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},"k":{"const":1},"u":{"type":"string","format":"uuid"}},"required":["n"],"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"Must match the regular expression \"^a+$\". Default: \"aa\"."},"n":{"type":"number","description":"Greater than 0. A multiple of 0.5."},"k":{"enum":[1]},"u":{"type":"string","description":"Format: uuid."}},"required":["n"],"additionalProperties":false,"propertyOrdering":["a","n","k","u"]}`, ""},
		{"gemini: nothing beside a $ref; definitions become $defs", schemaprofile.Gemini,
			`{"type":"object","properties":{"p":{"$ref":"#/definitions/P","description":"Where."}},"definitions":{"P":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			`{"type":"object","properties":{"p":{"description":"Where.","anyOf":[{"$ref":"#/$defs/P"}]}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}}}}}`, ""},
		{"gemini: an enum with a null and a boolean", schemaprofile.Gemini,
			`{"type":"object","properties":{"e":{"type":["string","null"],"enum":["a",null]},"b":{"enum":[true,"x"]}}}`,
			`{"type":"object","properties":{"e":{"type":["string","null"],"enum":["a"]},"b":{"description":"One of: [true,\"x\"]."}},"propertyOrdering":["e","b"]}`, ""},
		{"gemini: recursion under an optional field", schemaprofile.Gemini,
			`{"type":"object","properties":{"n":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}}},"required":["n"]}`,
			`{"type":"object","properties":{"n":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}}},"required":["n"],"propertyOrdering":["n","kids"]}`, ""},
		{"gemini: recursion under a required field", schemaprofile.Gemini,
			`{"type":"object","properties":{"next":{"$ref":"#/$defs/L"}},"required":["next"],"$defs":{"L":{"type":"object","properties":{"next":{"$ref":"#/$defs/L"}},"required":["next"]}}}`,
			"", "next: a recursive reference in a field the model must fill"},
		{"gemini: not", schemaprofile.Gemini, `{"type":"object","properties":{"v":{"not":{"type":"string"}}}}`, "", "v: Gemini has no not"},
		{"gemini: not JSON", schemaprofile.Gemini, `{"type":`, "", "not valid JSON"},
		{"anthropic: taken as it is", schemaprofile.Anthropic,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string","pattern":"^a"},{"$ref":"#/$defs/P"}],"default":{"$ref":"data"}}},"$defs":{"P":{"type":"object","properties":{"x":{"not":{"type":"null"}}}}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string","pattern":"^a"},{"$ref":"#/$defs/P"}],"default":{"$ref":"data"}}},"$defs":{"P":{"type":"object","properties":{"x":{"not":{"type":"null"}}}}}}`, ""},
		{"anthropic: anyOf at the top", schemaprofile.Anthropic, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`, "", ": Claude takes no anyOf at the top"},
		{"anthropic: oneOf at the top", schemaprofile.Anthropic, `{"oneOf":[{"type":"object"},{"type":"object"}]}`, "", ": Claude takes no oneOf at the top"},
		{"anthropic: allOf at the top", schemaprofile.Anthropic, `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}]}`, "", ": Claude takes no allOf at the top"},
		{"anthropic: an array at the top", schemaprofile.Anthropic, `{"type":"array","items":{"type":"string"}}`, "", ": Claude takes a tool's input as an object, not array"},
		{"anthropic: a reference outside", schemaprofile.Anthropic, `{"type":"object","properties":{"w":{"type":"object","properties":{"p":{"$ref":"https://example.com/p.json"}}}}}`, "", "w.p: a reference outside the schema"},
		{"anthropic: not JSON", schemaprofile.Anthropic, `[1`, "", "not valid JSON"},
		{"strict: a pattern with a lookaround moves into the description", schemaprofile.OpenAIStrict,
			`{"type":"object","properties":{"d":{"type":"string","pattern":"^(?!^[-+.]*$)[+-]?0*\\d*$"},"k":{"type":"string","pattern":"^\\(?=a$"}},"required":["d","k"]}`,
			`{"type":"object","properties":{"d":{"type":"string","description":"Must match the regular expression \"^(?!^[-+.]*$)[+-]?0*\\\\d*$\"."},"k":{"type":"string","pattern":"^\\(?=a$"}},"required":["d","k"],"additionalProperties":false}`, ""},
		{"claude strict: closed objects, optional stays optional, constraints into descriptions", schemaprofile.AnthropicStrict,
			`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":5},"tags":{"type":"array","items":{"type":"string","maxLength":9},"minItems":2,"maxItems":3},"one":{"type":"array","items":{"type":"string"},"minItems":1},"at":{"type":"string","format":"date-time"},"ip":{"type":"string","format":"ipv4"},"cidr":{"type":"string","format":"cidr"},"word":{"type":"string","pattern":"^\\bw"},"code":{"type":"string","pattern":"^[A-Z]{3}$"},"p":{"$ref":"#/$defs/P","description":"Where."},"e":{"oneOf":[{"type":"string"},{"type":"null"}],"default":null}},"required":["n"],"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}}}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","description":"At least 1. At most 5."},"tags":{"type":"array","items":{"type":"string","description":"At most 9 characters."},"description":"At least 2 items. At most 3 items."},"one":{"type":"array","items":{"type":"string"},"minItems":1},"at":{"type":"string","format":"date-time"},"ip":{"type":"string","format":"ipv4"},"cidr":{"type":"string","description":"Format: cidr."},"word":{"type":"string","description":"Must match the regular expression \"^\\\\bw\"."},"code":{"type":"string","pattern":"^[A-Z]{3}$"},"p":{"description":"Where.","anyOf":[{"$ref":"#/$defs/P"}]},"e":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Default: null."}},"required":["n"],"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","description":"Greater than 0."}},"additionalProperties":false}},"additionalProperties":false}`, ""},
		{"claude strict: a map", schemaprofile.AnthropicStrict, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "", "m: an object whose keys are not declared"},
		{"claude strict: recursion", schemaprofile.AnthropicStrict, `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`, "", "(the whole schema): a recursive schema"},
		{"claude strict: recursion through a definition", schemaprofile.AnthropicStrict, `{"type":"object","properties":{"l":{"$ref":"#/$defs/L"}},"$defs":{"L":{"type":"object","properties":{"next":{"$ref":"#/$defs/L"}}}}}`, "", "$defs.L: a recursive schema"},
		{"claude strict: a tuple", schemaprofile.AnthropicStrict, `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}]}}}`, "", "t: Claude's structured outputs have no tuples"},
		{"claude strict: not an object", schemaprofile.AnthropicStrict, `{"type":"string"}`, "", ": Claude's structured outputs want an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			a, err := tt.profile.Adapt("tool_x", json.RawMessage(tt.schema))
			if tt.want == "" {
				var pe *schemaprofile.Error
				is.True(errors.As(err, &pe))
				is.Equal(pe.Tool, "tool_x")
				is.Equal(pe.Provider, tt.profile.Provider)
				is.True(strings.Contains(err.Error(), `tool "tool_x"`))
				is.True(strings.Contains(pe.Field+": "+pe.Reason, tt.err)) // names the field and what is wrong
				return
			}
			is.NoErr(err)
			is.Equal(string(a.Schema), tt.want)
			again, err := tt.profile.Adapt("tool_x", json.RawMessage(tt.schema))
			is.NoErr(err)
			is.Equal(again, a) // kept, not made again
		})
	}
}

func TestRestore(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"string"},"o":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x"]},"l":{"type":"array","items":{"$ref":"#/$defs/I"}},"u":{"anyOf":[{"$ref":"#/$defs/I"},{"type":"null"}]}},"required":["o","l"],"$defs":{"I":{"type":"object","properties":{"k":{"type":"string"}}}}}`
	a, err := schemaprofile.OpenAIStrict.Adapt("t", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"a":null,"o":{"x":1,"y":null},"l":[{"k":null},{"k":"v"}],"u":{"k":null}}`, `{"o":{"x":1},"l":[{},{"k":"v"}],"u":{}}`},
		{`{"a":"s","o":{"x":null,"y":2},"l":[],"u":null}`, `{"a":"s","o":{"x":null,"y":2},"l":[]}`}, // a required null stays: the decoder refuses it
		{`{"o":{"x":1},"l":[]}`, `{"o":{"x":1},"l":[]}`},
		{`[1,2]`, `[1,2]`},
		{`{"a":`, `{"a":`},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(string(a.Restore(json.RawMessage(tt.args))), tt.want)
	}
}

// TestProfilesAcceptGeneratedSchemas adapts every schema the generator wrote in this module (the examples, the
// benchmark and test fixtures): Gemini takes each one; OpenAI's strict mode and Claude's structured outputs take
// each one or name the field they cannot describe; Claude's tools take each one.
func TestProfilesAcceptGeneratedSchemas(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "typeshift_gen.go" {
			return err
		}
		for name, schema := range generatedSchemas(t, path) {
			n++
			if _, err := schemaprofile.Gemini.Adapt(name, json.RawMessage(schema)); err != nil {
				t.Errorf("%s: %s: %v", path, name, err)
			}
			if a, err := schemaprofile.Anthropic.Adapt(name, json.RawMessage(schema)); err != nil || a.Changed {
				t.Errorf("%s: %s: Claude: %v (changed %v)", path, name, err, a != nil && a.Changed)
			}
			for _, p := range []*schemaprofile.Profile{schemaprofile.OpenAIStrict, schemaprofile.AnthropicStrict} {
				if _, err := p.Adapt(name, json.RawMessage(schema)); err != nil {
					var pe *schemaprofile.Error
					if !errors.As(err, &pe) || pe.Field == "" {
						t.Errorf("%s: %s: %s: %v", path, name, p.Name, err)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found %d generated schemas", n)
	}
}

// generatedSchemas returns the schema constants of a generated file, by constant name.
func generatedSchemas(t *testing.T, path string) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !strings.HasSuffix(id.Name, "Schema") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[id.Name] = v
			}
		}
	}
	return out
}
