package shapes

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset"
)

// reference decodes args the slow way: schema validation, then encoding/json, then the defaults the schema
// declares. It returns the value as json.Marshal writes it, or false if either step rejects args.
type reference struct {
	schema *jsonschema.Schema
	decode func(args []byte) (any, error)
}

func newReference(t testing.TB, tool *toolset.Tool, decode func(args []byte) (any, error)) reference {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		t.Fatal(err)
	}
	return reference{schema: s, decode: decode}
}

func (r reference) accept(args []byte) (string, bool) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil || r.schema.Validate(inst) != nil {
		return "", false
	}
	v, err := r.decode(args)
	if err != nil {
		return "", false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(out), true
}

func decodeEcho(args []byte) (any, error) {
	var in EchoInput
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(args, &present); err != nil {
		return nil, err
	}
	if _, ok := present["priority"]; !ok {
		in.Priority = Normal
	}
	if _, ok := present["limit"]; !ok {
		five := 5
		in.Limit = &five
	}
	return in, nil
}

func decodeTree(args []byte) (any, error) {
	var n Node
	if err := json.Unmarshal(args, &n); err != nil {
		return nil, err
	}
	var count func(n Node) int
	count = func(n Node) int {
		c := 1
		for _, ch := range n.Children {
			c += count(ch)
		}
		return c
	}
	return count(n), nil
}

// differential checks that the generated tool accepts exactly what the reference accepts, with the same result.
func differential(t testing.TB, tool *toolset.Tool, ref reference, args []byte) {
	got, err := tool.Call(context.Background(), &toolset.Call{ID: "c", Arguments: args})
	if !json.Valid(args) {
		if err == nil {
			t.Fatalf("generated decoder accepts invalid JSON %q", args)
		}
		return
	}
	if schematest.HasDuplicateKeys(args, "any", "raw") {
		// Refused by design; the reference would keep the last value.
		if err == nil {
			t.Fatalf("generated decoder accepts %s, which names a key twice", args)
		}
		return
	}
	want, ok := ref.accept(args)
	switch {
	case err == nil && !ok:
		t.Fatalf("generated decoder accepts %s, which the schema and encoding/json reject", args)
	case err != nil && ok:
		t.Fatalf("generated decoder rejects %s (%v), which the schema and encoding/json accept", args, err)
	case err == nil && string(got) != want:
		t.Fatalf("for %s: generated %s, reference %s", args, got, want)
	}
}

var differentialSeeds = []string{
	fullEcho,
	`{"id":"a-1","flag":true,"-":"","NoTag":""}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","limit":null,"tags":null,"place":null}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","limit":11}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","i8":-129}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","u8":1.0}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","u64":-0}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","f32":1e39}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","priority":null}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","grid":[1,2,3]}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","window":{"from":1,"x":2}}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","tags":["é€🙂🙂🙂"]}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","tags":["é€🙂🙂🙂🙂"]}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","data":"aGk"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-13-01T00:00:00Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","count":"-0"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","ok":"false"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","scores":{"a":1.5}}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","place":{"lat":1,"lng":2,"alt":3}}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","note":"\u003c\ud83d\ude00"}`,
	`{"ID":"a-1","flag":true,"-":"","NoTag":""}`,
	`{}`,
	`[]`,
	`"x"`,
}

func TestDifferential(t *testing.T) {
	_, m := tools(t)
	echo := newReference(t, m["echo"], decodeEcho)
	for _, seed := range differentialSeeds {
		differential(t, m["echo"], echo, []byte(seed))
	}
	tree := newReference(t, m["tree"], decodeTree)
	for _, seed := range []string{
		`{"name":"a"}`, `{"name":"a","children":[{"name":"b"}]}`, `{"name":"a","children":[{}]}`,
		`{"name":"a","parent":null}`, `{"name":"a","parent":{"name":"b","parent":{"name":"c"}}}`,
		`{"name":"a","children":null}`, `{"name":1}`,
	} {
		differential(t, m["tree"], tree, []byte(seed))
	}
}

func FuzzEchoDifferential(f *testing.F) {
	for _, seed := range differentialSeeds {
		f.Add([]byte(seed))
	}
	_, m := tools(f)
	ref := newReference(f, m["echo"], decodeEcho)
	f.Fuzz(func(t *testing.T, args []byte) {
		differential(t, m["echo"], ref, args)
	})
}
