package shapes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
)

// tools returns the generated tools of a fresh Shapes by name.
func tools(t testing.TB) (*Shapes, map[string]*toolset.Tool) {
	t.Helper()
	s := &Shapes{}
	list, err := s.Tools(context.Background(), &toolset.Run{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*toolset.Tool{}
	for _, tool := range list {
		m[tool.Name] = tool
	}
	return s, m
}

func call(t *testing.T, tool *toolset.Tool, args string) (string, error) {
	t.Helper()
	out, err := tool.Call(context.Background(), &toolset.Call{ID: "c1", Name: tool.Name, Arguments: json.RawMessage(args)})
	return string(out), err
}

const fullEcho = `{"id":"req-1","source":"web","note":"n","flag":true,"i8":-128,"i16":300,"i32":-70000,
	"i64":9007199254740993,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"f32":1.5,
	"f64":0.25,"data":"aGk=","when":"2026-01-02T03:04:05.000000006+01:00","stamp":"2026-01-02T03:04:05Z",
	"any":{"b":[1,"x",null]},"raw":{"k": [true]},"priority":"high","tags":["a","<b>"],"grid":[1,2],
	"scores":{"z":1,"a":2},"place":{"lat":1,"lng":2},"places":[{"lat":-90,"lng":180}],"limit":7,
	"count":"42","ok":"true","window":{"from":1,"to":2},"lang":"de","amount":12.50,"wait":1500,"day":"2024-02-29","ratio":0.25,"-":"dash","NoTag":"x"}`

// TestEchoMatchesEncodingJSON decodes with the generated decoder and encodes with the generated encoder, and
// checks both against encoding/json on the same value.
func TestEchoMatchesEncodingJSON(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["echo"], fullEcho)
	is.NoErr(err)
	var want EchoInput
	is.NoErr(json.Unmarshal([]byte(fullEcho), &want))
	wantJSON, err := json.Marshal(want)
	is.NoErr(err)
	is.Equal(got, string(wantJSON))
}

func TestEchoDefaults(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["echo"], `{"id":"a-1","flag":false,"-":"","NoTag":""}`)
	is.NoErr(err)
	var out EchoInput
	is.NoErr(json.Unmarshal([]byte(got), &out))
	is.Equal(out.Priority, Normal)
	is.True(out.Limit != nil && *out.Limit == 5)
}

func TestBadArguments(t *testing.T) {
	base := `"id":"a-1","flag":true,"-":"","NoTag":""`
	for _, tc := range []struct{ args, want string }{
		{`{"flag":true,"-":"","NoTag":""}`, `missing required property "id"`},
		{`{` + base + `,"limit":500}`, `"limit" must be at most 10, got 500`},
		{`{` + base + `,"limit":0}`, `"limit" must be at least 1, got 0`},
		{`{` + base + `,"priority":"urgent"}`, `"priority" must be one of low, normal, high`},
		{`{` + base + `,"id2":1}`, `unknown property "id2"; allowed: id, source, note, flag, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, data, when, stamp, any, raw, priority, tags, grid, scores, place, places, limit, count, ok, window, lang, amount, wait, day, ratio, -, NoTag`},
		{`{"id":"A","flag":true,"-":"","NoTag":""}`, `"id" must match the pattern ^[a-z]+-[0-9]+$`},
		{`{` + base + `,"i8":300}`, `"i8" must be an integer between -128 and 127, got 300`},
		{`{` + base + `,"f64":1}`, `"f64" must be less than 1, got 1`},
		{`{` + base + `,"f64":0}`, `"f64" must be greater than 0, got 0`},
		{`{` + base + `,"tags":[]}`, `"tags" must have at least 1 item, got 0`},
		{`{` + base + `,"tags":["a","b","c","d"]}`, `"tags" must have at most 3 items, got 4`},
		{`{` + base + `,"tags":["toolong"]}`, `"tags[0]" must be at most 5 characters long, got 7`},
		{`{` + base + `,"grid":[1]}`, `"grid" must have 2 items, got 1`},
		{`{` + base + `,"stamp":"yesterday"}`, `"stamp" must be a date-time in RFC 3339 form, such as 2026-01-02T15:04:05Z, got "yesterday"`},
		{`{` + base + `,"place":{"lat":91,"lng":0}}`, `"place.lat" must be at most 90, got 91`},
		{`{` + base + `,"places":[{"lat":0}]}`, `missing required property "places[0].lng"`},
		{`{` + base + `,"count":"4x"}`, `"count" must be a string holding an integer, got "4x"`},
		{`{` + base + `,"ok":"yes"}`, `"ok" must be a string holding true or false, got "yes"`},
		{`{` + base + `,"window":{}}`, `missing required property "window.from"`},
		{`{` + base + `,"lang":"fr"}`, `"lang" must be one of en, de`},
		{`{"id":"a-1","flag":null,"-":"","NoTag":""}`, `"flag" must be a boolean, got null`},
		{`{` + base + `,"flag":false}`, `duplicate property "flag"; give each property once`},
		{`{` + base + `,"scores":{"a":1,"\u0061":2}}`, `duplicate property "scores.a"; give each property once`},
		{`{` + base + `,"count":" 42"}`, `"count" must be a string holding an integer, got " 42"`},
		{`{` + base + `,"count":"42 "}`, `"count" must be a string holding an integer, got "42 "`},
		{`{` + base + `,"f64":1.00000000000000000001}`, `"f64" must be less than 1, got 1`},
		{`{` + base + `,"when":"2026-01-02T03:04:05+24:00"}`, `"when" must be a date-time`},
		{`{` + base + `,"stamp":"2026-01-02T3:04:05Z"}`, `"stamp" must be a date-time in RFC 3339 form`},
		{`{` + base + `,"amount":"12"}`, `"amount" must be a number, got string`},
		{`{` + base + `,"amount":1000.0}`, `"amount" must be less than 1e3, got 1000.0`},
		{`{` + base + `,"amount":-0.0000000000000000000001}`, `"amount" must be at least 0`},
		{`{` + base + `,"ratio":0.09999999999}`, `"ratio" must be at least 0.1`},
		{`{` + base + `,"day":"2026-02-30"}`, `"day" must be a date in RFC 3339 form`},
		{`{` + base + `,"wait":-1}`, `"wait" must be at least 0`},
		{`{` + base + `,"when":"today"}`, `"when" must be a date-time`},
		{`[1]`, `arguments must be an object, got array`},
		{`{` + base + `,}`, `invalid JSON`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			_, m := tools(t)
			_, err := call(t, m["echo"], tc.args)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

func TestNullForNullable(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["echo"], `{"id":"a-1","flag":true,"-":"","NoTag":"","tags":null,"place":null,"limit":null,"scores":null,"data":null,"any":null,"raw":null}`)
	is.NoErr(err)
	var out EchoInput
	is.NoErr(json.Unmarshal([]byte(got), &out))
	is.True(out.Limit == nil) // null is not absent: the default does not apply
	is.True(out.Tags == nil)
}

func TestKindsAndMarshaler(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["kinds"], `{"level":3,"labels":{"b":"2","a":"1"}}`)
	is.NoErr(err)
	is.Equal(got, `{"level":3,"labels":{"a":"1","b":"2"},"stamp":"stamp-xxx","nil":null}`)
	_, err = call(t, m["kinds"], `{"level":40000}`)
	is.True(err != nil)
	is.Equal(err.Error(), `"level" must be an integer between -32768 and 32767, got 40000`)
}

func TestRecursion(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["tree"], `{"name":"a","children":[{"name":"b","children":[{"name":"c"}]},{"name":"d","parent":{"name":"x"}}]}`)
	is.NoErr(err)
	is.Equal(got, "4")
	_, err = call(t, m["tree"], `{"name":"a","children":[{"name":"b","children":[{}]}]}`)
	is.Equal(err.Error(), `missing required property "children[0].children[0].name"`)
}

func TestStreams(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	got, err := call(t, m["count_up"], `{"to":3}`)
	is.NoErr(err)
	is.Equal(got, "[1,2,3]")
	got, err = call(t, m["count_up"], `{"to":0}`)
	is.NoErr(err)
	is.Equal(got, "[]")
	got, err = call(t, m["words"], `{"text":"a b"}`)
	is.NoErr(err)
	is.Equal(got, `["a","b"]`)
	_, err = call(t, m["words"], `{"text":"a boom b"}`)
	is.Equal(err.Error(), "the word boom cannot be read")
}

func TestConfigurableSettings(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	tool := m["configure"]
	is.True(tool.Configure != nil)
	is.True(len(tool.SettingsSchema) > 0)
	got, err := call(t, tool, `{}`)
	is.NoErr(err)
	is.Equal(got, `{"level":3,"mode":"fast","secret":"s3cr3t"}`)

	next, err := tool.WithOverrides(json.RawMessage(`{"level":4,"extras":["x"]}`), json.RawMessage(`{"mode":"slow"}`))
	is.NoErr(err)
	is.True(next.State == tool.State)
	got, err = call(t, next, `{}`)
	is.NoErr(err)
	is.Equal(got, `{"level":4,"mode":"slow","secret":"s3cr3t","extras":["x"]}`)
	got, err = call(t, tool, `{}`)
	is.NoErr(err)
	is.Equal(got, `{"level":3,"mode":"fast","secret":"s3cr3t"}`) // the original is untouched

	_, err = tool.Configure(json.RawMessage(`{"secret":"x"}`))
	is.Equal(err.Error(), `unknown property "secret"; allowed: level, mode, extras`)
	_, err = tool.Configure(json.RawMessage(`{"level":9}`))
	is.Equal(err.Error(), `"level" must be at most 5, got 9`)
	_, err = tool.Configure(json.RawMessage(`{"mode":"medium"}`))
	is.Equal(err.Error(), `"mode" must be one of fast, slow`)
}

func TestPickedSettingsAndCall(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	tool := m["picked"]
	got, err := call(t, tool, `{"name":"n"}`)
	is.NoErr(err)
	is.Equal(got, `"n slow c1"`)
	_, err = tool.Configure(json.RawMessage(`{"level":2}`))
	is.Equal(err.Error(), `unknown property "level"; allowed: mode`)
	next, err := tool.Configure(json.RawMessage(`{"mode":"fast"}`))
	is.NoErr(err)
	got, err = call(t, next, `{"name":"n"}`)
	is.NoErr(err)
	is.Equal(got, `"n fast c1"`)
	is.True(m["echo"].Configure == nil)
}

// TestDefaultSettingsOutsideTheirTags shows that default settings the generator could not read are checked
// against their tags when the tools are made: out of range, or not one of the enum values, they make no tools
// and say which setting and which tag; within them, the tool runs with them.
func TestDefaultSettingsOutsideTheirTags(t *testing.T) {
	for _, tc := range []struct {
		defaults Tuning
		err      string
	}{
		{Tuning{Level: 9, Mode: "fast"}, `Tuned.adjust: WithSettings gives level = 9, which its tag refuses (minimum=1, maximum=5): give a value the tag accepts, or change the tag`},
		{Tuning{Level: 0, Mode: "fast"}, `Tuned.adjust: WithSettings gives level = 0, which its tag refuses (minimum=1, maximum=5)`},
		{Tuning{Level: 2, Mode: "turbo"}, `Tuned.adjust: WithSettings gives mode = "turbo", which its tag refuses (enum "fast", "slow")`},
		{Tuning{Level: 5, Mode: "slow"}, ""},
	} {
		is := is.New(t)
		tools, err := (&Tuned{Defaults: tc.defaults}).Tools(context.Background(), &toolset.Run{})
		if tc.err != "" {
			is.True(err != nil)
			is.True(strings.HasPrefix(err.Error(), tc.err)) // names the tool, the setting and the tag
			is.Equal(len(tools), 0)
			continue
		}
		is.NoErr(err)
		got, err := call(t, tools[0], `{}`)
		is.NoErr(err)
		is.True(strings.Contains(got, `"level":5`))
	}
}

func TestNoInputTools(t *testing.T) {
	is := is.New(t)
	s, m := tools(t)
	got, err := call(t, m["raw"], `{"anything": 1}`)
	is.Equal(err.Error(), `unknown property "anything"`)
	for _, args := range []string{``, `null`, ` {} `} {
		got, err = call(t, m["raw"], args)
		is.NoErr(err)
		is.Equal(got, "null")
	}
	is.Equal(len(s.Calls), 3)
	got, err = call(t, m["version"], `{}`)
	is.NoErr(err)
	is.Equal(got, `"1.0"`)
	is.Equal(m["version"].Description, "Reports the version.")
	_, err = call(t, m["fail"], `{}`)
	is.Equal(err.Error(), "nothing to do: call echo instead")
}

func TestEncodingMatchesEncodingJSON(t *testing.T) {
	is := is.New(t)
	s, m := tools(t)
	got, err := call(t, m["blob"], `{}`)
	is.NoErr(err)
	want, err := json.Marshal(s.Blob(BlobInput{}))
	is.NoErr(err)
	is.Equal(got, string(want))
	for _, bad := range []string{"nan", "year", "raw"} {
		_, err := call(t, m["blob"], `{"bad":"`+bad+`"}`)
		is.True(err != nil) // JSON cannot hold it
		_, jerr := json.Marshal(s.Blob(BlobInput{Bad: bad}))
		is.True(jerr != nil) // nor can encoding/json write it
	}
}

func TestToolFields(t *testing.T) {
	is := is.New(t)
	_, m := tools(t)
	is.Equal(len(m), 12)
	echo := m["echo"]
	is.True(echo.ReadOnly)
	is.Equal(echo.ID, "github.com/typeshift-go/typeshift/internal/emit/testdata/src/shapes.Shapes.echo")
	is.Equal(echo.Description, "Returns its input as it read it.")
	is.True(json.Valid(echo.Schema))
	is.True(echo.State != nil)
}

func TestGenericResultAndIsZero(t *testing.T) {
	is := is.New(t)
	s, m := tools(t)
	for _, size := range []int{0, 1, 3} {
		args := fmt.Sprintf(`{"size":%d}`, size)
		got, err := call(t, m["pages"], args)
		is.NoErr(err)
		page, _ := s.Pages(PagesInput{Size: size})
		want, err := json.Marshal(page)
		is.NoErr(err)
		is.Equal(got, string(want))
	}
}
