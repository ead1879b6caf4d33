package shapes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

func newReference(t testing.TB, schema []byte, decode func(args []byte) (any, error)) reference {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
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
	if err != nil || r.validate(inst) != nil {
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

// errUnjudged is the reference's verdict on a document its validator cannot judge.
var errUnjudged = errors.New("the validator panics on this document")

// validate validates inst against the schema. jsonschema/v6 panics on a number that math/big cannot hold as a
// fraction, such as 1E1000001 (its numValidate drops big.Rat.SetString's failure and compares a nil *big.Rat;
// santhosh-tekuri/jsonschema#248 fixed the same for NaN and infinities): such a document is not judged.
func (r reference) validate(inst any) (err error) {
	defer func() {
		if recover() != nil {
			err = errUnjudged
		}
	}()
	return r.schema.Validate(inst)
}

// judged reports whether the reference can judge args.
func (r reference) judged(args []byte) bool {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	return err != nil || r.validate(inst) != errUnjudged
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
	differentialOf(t, func(args []byte) ([]byte, error) {
		return tool.Call(context.Background(), &toolset.Call{ID: "c", Arguments: args})
	}, ref, args)
}

// differentialOf checks that generated, a generated decoder followed by an encoder, accepts exactly what the
// reference accepts, with the same result.
func differentialOf(t testing.TB, generated func(args []byte) ([]byte, error), ref reference, args []byte) {
	got, err := generated(args)
	if !json.Valid(args) {
		if err == nil {
			t.Fatalf("generated decoder accepts invalid JSON %q", args)
		}
		return
	}
	if err != nil && strings.Contains(err.Error(), "nested too deeply") {
		// The decoder's own limit (tooljson.MaxDepth), documented; encoding/json allows 10000 levels.
		return
	}
	if schematest.HasDuplicateKeys(args, "any", "raw") {
		// Refused by design; the reference would keep the last value.
		if err == nil {
			t.Fatalf("generated decoder accepts %s, which names a key twice", args)
		}
		return
	}
	if !ref.judged(args) {
		// The schema side cannot say; encoding/json's side still binds.
		if _, refErr := ref.decode(args); refErr != nil && err == nil {
			t.Fatalf("generated decoder accepts %s, which encoding/json rejects (%v)", args, refErr)
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
	`{"id":"a-1","flag":true,"-":"","NoTag":"","flag":false}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","scores":{"a":1,"\u0061":2}}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","any":{"a":1,"a":2}}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","count":" 42"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","count":"42 "}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","count":"4e1"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","f64":1.00000000000000000001}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","f64":0.99999999999999999999}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","f64":1e-400}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","ratio":0.09999999999}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","ratio":0.50000000001}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","amount":12.50}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","amount":"12"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","amount":999.9999999999999999999}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","amount":-0}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","wait":-1}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","day":"2024-02-29"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","day":"2026-02-29"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-01-02T03:04:05+24:00"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-01-02T03:04:05+23:59"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-01-02t03:04:05z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-12-31T23:59:60Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-01-02T3:04:05Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","when":"2026-01-02T03:04:05,5Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","stamp":"2026-12-31T23:59:60Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","stamp":"2026-01-02t03:04:05z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","stamp":"2026-01-02T3:04:05Z"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","data":"aGk="}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","data":"aGk=\n"}`,
	`{"id":"a-1","flag":true,"-":"","NoTag":"","raw":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
	`{}`,
	`[]`,
	`"x"`,
}

// The differential tests hold the generated decoders to one rule: for any input, the tool accepts exactly what
// json.Unmarshal plus validation against the generated schema (jsonschema/v6, formats asserted) accept, and
// returns the same value. The documented exceptions: an object that names a key twice is refused (see
// tooljson.Decoder.Duplicate), and nesting deeper than tooljson.MaxDepth is refused. The targets cover groups of
// shapes: FuzzEchoDifferential every scalar, container, time, number and tag option; FuzzTreeDifferential
// recursion; FuzzKindsDifferential named kinds and map keys.

var (
	differentialTree = []string{
		`{"name":"a"}`, `{"name":"a","children":[{"name":"b"}]}`, `{"name":"a","children":[{}]}`,
		`{"name":"a","parent":null}`, `{"name":"a","parent":{"name":"b","parent":{"name":"c"}}}`,
		`{"name":"a","children":null}`, `{"name":1}`, `{"name":"a","name":"b"}`,
		`{"name":"a","children":[{"name":"b","children":[{"name":"c","parent":{"name":"d"}}]}]}`,
		strings.Repeat(`{"name":"a","parent":`, 40) + `null` + strings.Repeat(`}`, 40),
	}
	differentialKinds = []string{
		`{"level":3}`, `{"level":-32768}`, `{"level":32768}`, `{"level":1.0}`, `{"level":"3"}`,
		`{"level":1,"labels":{"a":"x","b":"y"}}`, `{"level":1,"labels":{"a":"x","a":"y"}}`,
		`{"level":1,"labels":{"\u00e9":"x"}}`, `{"level":1,"labels":null}`, `{"level":1,"labels":{"a":null}}`,
		`{"level":1,"labels":{"a":1}}`, `{"level":1,"level":2}`, `{}`,
	}
)

func decodeKinds(args []byte) (any, error) {
	var in KindsInput
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	return KindsOutput{Level: in.Level, Labels: in.Labels, Stamp: Stamp{At: int(in.Level)}}, nil
}

func TestDifferential(t *testing.T) {
	_, m := tools(t)
	echo := newReference(t, m["echo"].Schema, decodeEcho)
	for _, seed := range differentialSeeds {
		differential(t, m["echo"], echo, []byte(seed))
	}
	tree := newReference(t, m["tree"].Schema, decodeTree)
	for _, seed := range differentialTree {
		differential(t, m["tree"], tree, []byte(seed))
	}
	kinds := newReference(t, m["kinds"].Schema, decodeKinds)
	for _, seed := range differentialKinds {
		differential(t, m["kinds"], kinds, []byte(seed))
	}
}

// TestSchemasValidate checks every schema of the fixture against the 2020-12 metaschema.
func TestSchemasValidate(t *testing.T) {
	_, m := tools(t)
	for name, tool := range m {
		if _, err := schematest.Compile(tool.Schema); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(tool.SettingsSchema) > 0 {
			if _, err := schematest.Compile(tool.SettingsSchema); err != nil {
				t.Errorf("%s settings: %v", name, err)
			}
		}
	}
}

func FuzzTreeDifferential(f *testing.F) {
	for _, seed := range differentialTree {
		f.Add([]byte(seed))
	}
	_, m := tools(f)
	ref := newReference(f, m["tree"].Schema, decodeTree)
	f.Fuzz(func(t *testing.T, args []byte) {
		differential(t, m["tree"], ref, args)
	})
}

func FuzzKindsDifferential(f *testing.F) {
	for _, seed := range differentialKinds {
		f.Add([]byte(seed))
	}
	_, m := tools(f)
	ref := newReference(f, m["kinds"].Schema, decodeKinds)
	f.Fuzz(func(t *testing.T, args []byte) {
		differential(t, m["kinds"], ref, args)
	})
}

func FuzzEchoDifferential(f *testing.F) {
	for _, seed := range differentialSeeds {
		f.Add([]byte(seed))
	}
	_, m := tools(f)
	ref := newReference(f, m["echo"].Schema, decodeEcho)
	f.Fuzz(func(t *testing.T, args []byte) {
		differential(t, m["echo"], ref, args)
	})
}

var writeCorpus = flag.Bool("corpus", false, "write the differential seeds to testdata/fuzz")

// TestWriteCorpus writes the seeds of each target to its committed corpus under testdata/fuzz with -corpus, so
// that go test runs them even where the seed lists change.
func TestWriteCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -corpus to rewrite testdata/fuzz")
	}
	for target, seeds := range map[string][]string{
		"FuzzEchoDifferential":  differentialSeeds,
		"FuzzTreeDifferential":  differentialTree,
		"FuzzKindsDifferential": differentialKinds,
	} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, seed := range seeds {
			sum := sha256.Sum256([]byte(seed))
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(seed) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
