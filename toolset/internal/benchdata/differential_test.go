package benchdata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/internal/benchdata"
)

// The differential tests hold the generated decoders to one rule: they accept exactly the arguments that
// validation against the generated schema (jsonschema/v6) and then json.Unmarshal accept, and decode them to
// the same value.

// fixture is one fixture tool with the reference it is compared with.
type fixture struct {
	tool   *toolset.Tool
	schema *jsonschema.Schema
	// last returns the input the tool decoded and clears it.
	last func() any
	// fresh returns a new value for json.Unmarshal, holding the schema's defaults.
	fresh func() any
}

func fixtures(tb testing.TB) map[string]*fixture {
	tb.Helper()
	f := &benchdata.Fixtures{}
	tools, err := f.Tools(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]*fixture{}
	for _, tool := range tools {
		s, err := schematest.Compile(tool.Schema)
		if err != nil {
			tb.Fatalf("schema of %s: %v", tool.Name, err)
		}
		fx := &fixture{tool: tool, schema: s}
		switch tool.Name {
		case "record":
			fx.last = func() any { v := f.LastSink; f.LastSink = benchdata.Sink{}; return &v }
			fx.fresh = func() any { return &benchdata.Sink{} }
		case "record_search":
			fx.last = func() any { v := f.LastSearch; f.LastSearch = benchdata.SearchArgs{}; return &v }
			fx.fresh = func() any { return &benchdata.SearchArgs{Limit: 20} }
		default:
			tb.Fatalf("unexpected fixture tool %s", tool.Name)
		}
		out[tool.Name] = fx
	}
	return out
}

// compare runs args through both sides and reports how they differ, or "" if they agree.
func (fx *fixture) compare(args []byte) string {
	_, genErr := fx.tool.Invoke(context.Background(), &toolset.Call{Name: fx.tool.Name, Arguments: args})
	got := fx.last()

	if schematest.HasDuplicateKeys(args, "raw") {
		// Refused by design, where the reference keeps the last value.
		if genErr == nil {
			return "generated accepts an object that names a key twice"
		}
		return ""
	}
	want := fx.fresh()
	refErr := schematest.Validate(fx.schema, args)
	if refErr == nil {
		refErr = json.Unmarshal(args, want)
	}
	switch {
	case genErr != nil && refErr != nil:
		return ""
	case genErr != nil:
		return fmt.Sprintf("generated rejects what schema + encoding/json accept: %v", genErr)
	case refErr != nil:
		return fmt.Sprintf("generated accepts what schema + encoding/json reject: %s", schematest.Short(refErr))
	case !reflect.DeepEqual(got, want):
		return fmt.Sprintf("decoded values differ:\ngenerated     %#v\nencoding/json %#v", got, want)
	}
	return ""
}

var differentialCases = []struct{ tool, args string }{
	// Search: what models send, and what they get wrong.
	{"record_search", benchArgs},
	{"record_search", `{"query":"x"}`},
	{"record_search", `{"query":""}`},
	{"record_search", `{}`},
	{"record_search", `{"query":null}`},
	{"record_search", `{"query":"x","limit":1}`},
	{"record_search", `{"query":"x","limit":100}`},
	{"record_search", `{"query":"x","limit":0}`},
	{"record_search", `{"query":"x","limit":101}`},
	{"record_search", `{"query":"x","limit":-3}`},
	{"record_search", `{"query":"x","limit":10.0}`},
	{"record_search", `{"query":"x","limit":1e1}`},
	{"record_search", `{"query":"x","limit":10.5}`},
	{"record_search", `{"query":"x","limit":"10"}`},
	{"record_search", `{"query":"x","limit":null}`},
	{"record_search", `{"query":"x","limit":99999999999999999999}`},
	{"record_search", `{"query":"x","include_closed":false}`},
	{"record_search", `{"query":"x","include_closed":"true"}`},
	{"record_search", `{"query":"x","include_closed":null}`},
	{"record_search", `{"query":"x","filter":{}}`},
	{"record_search", `{"query":"x","filter":null}`},
	{"record_search", `{"query":"x","filter":{"statuses":[]}}`},
	{"record_search", `{"query":"x","filter":{"statuses":null}}`},
	{"record_search", `{"query":"x","filter":{"statuses":["closed","open"]}}`},
	{"record_search", `{"query":"x","filter":{"statuses":["Open"]}}`},
	{"record_search", `{"query":"x","filter":{"statuses":[null]}}`},
	{"record_search", `{"query":"x","filter":{"statuses":"open"}}`},
	{"record_search", `{"query":"x","filter":{"assignee":"kim","team":"a"}}`},
	{"record_search", `{"query":"x","since":"2026-03-01T00:00:00Z"}`},
	{"record_search", `{"query":"x","since":"2026-03-01T00:00:00.123456789+02:00"}`},
	{"record_search", `{"query":"x","since":"2026-03-01"}`},
	{"record_search", `{"query":"x","since":"2026-03-01T25:00:00Z"}`},
	{"record_search", `{"query":"x","since":null}`},
	{"record_search", `{"query":"x","since":""}`},
	{"record_search", `{"query":"x","tags":[]}`},
	{"record_search", `{"query":"x","tags":null}`},
	{"record_search", `{"query":"x","tags":["a",1]}`},
	{"record_search", `{"query":"x","Query":"y"}`},
	{"record_search", `{"QUERY":"x"}`},
	{"record_search", `{"query":"x","query":"y"}`},
	{"record_search", `{"query":"x","filter":{"assignee":"a","assignee":"b"}}`},
	{"record", `{"s":"a","p":null,"counts":{"a":1,"a":2}}`},
	{"record", `{"s":"a","p":null,"counts":{"a":1,"\u0061":2}}`},
	{"record", `{"s":"a","p":null,"raw":{"a":1,"a":2}}`},
	{"record", `{"s":"a","p":null,"f":1e-400}`},
	{"record", `{"s":"a","p":null,"f":0.0000000000000000000000000000000000000000000000000000000000001}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T10:00:00+24:00"}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T1:00:00Z"}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T10:00:00,5Z"}`},
	{"record", `{"s":"a","p":null,"at":"2026-12-31T23:59:60Z"}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T10:00:00.5+23:59"}`},
	{"record_search", `{"query":"x"} {}`},
	{"record_search", `{"query":"\u00e9\ud83d\ude00\n"}`},
	{"record_search", "{\"query\":\"\xff\"}"},
	{"record_search", `{"query":"\ud800"}`},
	{"record_search", `[]`},
	{"record_search", `null`},
	{"record_search", ``},
	{"record_search", ` {"query" : "x" , "limit" : 5 } `},

	// Sink: every kind of field.
	{"record", `{"s":"a","p":null}`},
	{"record", `{"s":"a"}`},
	{"record", `{"s":"a","p":"b"}`},
	{"record", `{"p":"b"}`},
	{"record", `{"s":"a","p":null,"i8":127,"u16":65535}`},
	{"record", `{"s":"a","p":null,"i8":128}`},
	{"record", `{"s":"a","p":null,"i8":-129}`},
	{"record", `{"s":"a","p":null,"u16":-1}`},
	{"record", `{"s":"a","p":null,"u16":65536}`},
	{"record", `{"s":"a","p":null,"i":5}`},
	{"record", `{"s":"a","p":null,"i":6}`},
	{"record", `{"s":"a","p":null,"i":-5}`},
	{"record", `{"s":"a","p":null,"f":0.5}`},
	{"record", `{"s":"a","p":null,"f":0}`},
	{"record", `{"s":"a","p":null,"f":-1}`},
	{"record", `{"s":"a","p":null,"f":1e308}`},
	{"record", `{"s":"a","p":null,"f":1e309}`},
	{"record", `{"s":"a","p":null,"f32":3.4e38}`},
	{"record", `{"s":"a","p":null,"f32":3.5e38}`},
	{"record", `{"s":"a","p":null,"f32":0.1}`},
	{"record", `{"s":"a","p":null,"b":true}`},
	{"record", `{"s":"a","p":null,"b":null}`},
	{"record", `{"s":"a","p":null,"b":0}`},
	{"record", `{"s":"a","p":null,"bytes":"aGVsbG8="}`},
	{"record", `{"s":"a","p":null,"bytes":"aGVsbG8"}`},
	{"record", `{"s":"a","p":null,"bytes":""}`},
	{"record", `{"s":"a","p":null,"bytes":null}`},
	{"record", `{"s":"a","p":null,"bytes":[1,2]}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T10:00:00Z"}`},
	{"record", `{"s":"a","p":null,"at":"2026-03-01T10:00:00z"}`},
	{"record", `{"s":"a","p":null,"raw":{"any":[1,"two",null]}}`},
	{"record", `{"s":"a","p":null,"raw":null}`},
	{"record", `{"s":"a","p":null,"raw": [ 1 , 2 ] }`},
	{"record", `{"s":"a","p":null,"pair":[1,2]}`},
	{"record", `{"s":"a","p":null,"pair":[1]}`},
	{"record", `{"s":"a","p":null,"pair":[1,2,3]}`},
	{"record", `{"s":"a","p":null,"pair":null}`},
	{"record", `{"s":"a","p":null,"counts":{"a":1,"b":2}}`},
	{"record", `{"s":"a","p":null,"counts":{}}`},
	{"record", `{"s":"a","p":null,"counts":{"a":"1"}}`},
	{"record", `{"s":"a","p":null,"counts":null}`},
	{"record", `{"s":"a","p":null,"nested":{"name":"n"}}`},
	{"record", `{"s":"a","p":null,"nested":{}}`},
	{"record", `{"s":"a","p":null,"nested":null}`},
	{"record", `{"s":"a","p":null,"nested":{"name":"n","tags":["a","b","c"]}}`},
	{"record", `{"s":"a","p":null,"list":[{"name":"a"},{"name":"b","tags":["x"]}]}`},
	{"record", `{"s":"a","p":null,"list":[{"name":"a"},{}]}`},
	{"record", `{"s":"a","p":null,"list":[null]}`},
	{"record", `{"s":"a","p":null,"code":"AB"}`},
	{"record", `{"s":"a","p":null,"code":"ABCDE"}`},
	{"record", `{"s":"a","p":null,"code":"A"}`},
	{"record", `{"s":"a","p":null,"code":"ab"}`},
	{"record", `{"s":"a","p":null,"code":""}`},
	{"record", `{"s":"a","p":null,"level":"pending"}`},
	{"record", `{"s":"a","p":null,"level":"later"}`},
	{"record", `{"s":"a","p":null,"level":""}`},
}

func TestDifferential(t *testing.T) {
	fxs := fixtures(t)
	for _, c := range differentialCases {
		if diff := fxs[c.tool].compare([]byte(c.args)); diff != "" {
			t.Errorf("%s %s: %s", c.tool, c.args, diff)
		}
	}
}

// FuzzDifferential runs the differential check on arbitrary arguments; the first byte picks the tool.
func FuzzDifferential(f *testing.F) {
	for _, c := range differentialCases {
		pick := byte(0)
		if c.tool == "record" {
			pick = 1
		}
		f.Add(append([]byte{pick}, c.args...))
	}
	fxs := fixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		fx := fxs["record_search"]
		if data[0]&1 == 1 {
			fx = fxs["record"]
		}
		if diff := fx.compare(data[1:]); diff != "" {
			t.Errorf("%q: %s", strings.ToValidUTF8(string(data[1:]), "?"), diff)
		}
	})
}

// TestSchemasValidate checks every generated schema of this package against the 2020-12 metaschema.
func TestSchemasValidate(t *testing.T) {
	sources := map[string]toolset.Source{
		"Search":   &benchdata.Search{},
		"Fixtures": &benchdata.Fixtures{},
	}
	for name, src := range sources {
		tools, err := src.Tools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, tool := range tools {
			if _, err := schematest.Compile(tool.Schema); err != nil {
				t.Errorf("%s.%s: %v", name, tool.Name, err)
			}
			if tool.SettingsSchema != nil {
				if _, err := schematest.Compile(tool.SettingsSchema); err != nil {
					t.Errorf("%s.%s settings: %v", name, tool.Name, err)
				}
			}
		}
	}
}
