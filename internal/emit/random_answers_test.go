package emit_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/parse"
)

var randomSeed = flag.Uint64("random-seed", 1, "the seed of TestRandomAnswerTypes (0: a new one, logged)")

// TestRandomAnswerTypes is the differential test of answer decoders over answer types made at random: it writes a
// package of random struct types (every kind the generator reads, jsonschema constraints that fit each, optional
// and required fields, recursion through pointers, slices and maps) with an agent returning each, generates it as
// typeshift generate does, and runs a test in it that holds each generated decoder to the rule of FuzzAnswerDifferential:
// it accepts exactly what encoding/json plus jsonschema/v6 with the generated schema accept, with the same value.
// The documents are answers written against each schema by chattest.GenerateArguments, and mutations of them
// (a property dropped, retyped, nulled or added), so that both sides refuse some. It runs seed 1 unless
// -random-seed names another (0 picks one at random and logs it), so that go test is repeatable; to search, run
// it over many seeds:
//
//	for s in $(seq 100); do go test -run TestRandomAnswerTypes ./internal/emit -args -random-seed=$s || break; done
func TestRandomAnswerTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated package with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	seed := *randomSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -random-seed %d)", seed, seed)

	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const types = 16
	files := map[string]string{
		"go.mod":         randomModule(t, root),
		"go.sum":         readFile(t, filepath.Join(root, "go.sum")),
		"random.go":      newRandomPackage(seed, types).source(),
		"random_test.go": randomTest(types, seed),
		emit.FileName:    "package random\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Generate the package as typeshift generate does: it must take every random type without a diagnostic.
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Dir: dir,
		Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off"),
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	p := pkgs[0]
	for _, e := range p.Errors {
		if !strings.Contains(e.Msg, "TypeshiftAnswerType") {
			t.Fatalf("the random package does not type-check: %v\n%s", e, files["random.go"])
		}
	}
	var ds []parse.Diagnostic
	m := parse.Package(p.Fset, p.Syntax, p.Types, p.TypesInfo, parse.ReporterFunc(func(d parse.Diagnostic) {
		ds = append(ds, d)
	}))
	if len(ds) > 0 {
		t.Fatalf("the parser refuses a random type:\n%s\n%s", diagnostics(p, ds), files["random.go"])
	}
	if len(m.Agents) != types {
		t.Fatalf("the model has %d answering agents, want %d", len(m.Agents), types)
	}
	src, err := emit.File(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, emit.FileName), src, 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(goCmd, "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	cmd.Env = cfg.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in the random package (seed %d): %v\n%s", seed, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "accepted") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// randomModule is the go.mod of the random package: this module by a replace, and its own requirements.
func randomModule(t *testing.T, root string) string {
	t.Helper()
	mod := readFile(t, filepath.Join(root, "go.mod"))
	var b strings.Builder
	b.WriteString("module example.com/random\n\ngo 1.26.0\n\nrequire github.com/typeshift-go/typeshift v0.0.0\n\n")
	_, rest, _ := strings.Cut(mod, "\nrequire")
	b.WriteString("require" + rest)
	fmt.Fprintf(&b, "\nreplace github.com/typeshift-go/typeshift => %s\n", root)
	return b.String()
}

// randomPackage writes random answer types, A0 to An-1, and an agent Ri returning each Ai.
type randomPackage struct {
	r     *rand.Rand
	n     int
	decls []string
	anon  int
}

func newRandomPackage(seed uint64, n int) *randomPackage {
	return &randomPackage{r: rand.New(rand.NewPCG(seed, 2)), n: n}
}

func (g *randomPackage) source() string {
	var b strings.Builder
	b.WriteString(`// Package random holds answer types made at random by TestRandomAnswerTypes.
package random

import (
	"encoding/json"
	"time"

	"github.com/typeshift-go/typeshift/agent"
)

var (
	_ time.Time
	_ json.Number
)

// Level is enumerated.
//
//typeshift:enum
type Level string

const (
	LevelLow  Level = "low"
	LevelHigh Level = "high"
)

// Count is a named integer.
type Count int16
`)
	for i := range g.n {
		fmt.Fprintf(&b, "\n// A%d is an answer type.\ntype A%d struct {\n%s}\n", i, i, g.fields(i, 2))
		fmt.Fprintf(&b, "\n// R%d answers with an A%d.\ntype R%d struct{ agent.Agent }\n\nfunc (a *R%d) Declare() { agent.Returns[A%d](a) }\n", i, i, i, i, i)
	}
	return b.String()
}

// fields writes the fields of a struct: owner is the index of the named type it is part of, which may refer
// by value only to later types, so that no type contains itself.
func (g *randomPackage) fields(owner, depth int) string {
	var b strings.Builder
	for i := range 1 + g.r.IntN(6) {
		typ, kind := g.typ(owner, depth)
		if g.r.IntN(3) == 0 {
			fmt.Fprintf(&b, "\t// F%d is a field.\n", i)
		}
		name := fmt.Sprintf("f%d", i)
		opts := ""
		switch g.r.IntN(10) {
		case 0, 1, 2:
			opts = ",omitempty"
		case 3:
			// omitzero needs a comparable type (or IsZero): scalars, pointers, times.
			if kind == "int" || kind == "float" || kind == "bool" || kind == "string" || typ == "time.Time" || strings.HasPrefix(typ, "*") {
				opts = ",omitzero"
			}
		case 4:
			if kind == "int" || kind == "bool" || kind == "float" {
				opts = ",string"
			}
		}
		cons := ""
		if opts != ",string" {
			cons = g.constraints(kind)
		}
		tag := fmt.Sprintf("json:%q", name+opts)
		if g.r.IntN(12) == 0 && opts == "" {
			tag = "" // named by its Go name
		}
		if cons != "" {
			tag = strings.TrimSpace(tag + " " + fmt.Sprintf("jsonschema:%q", cons))
		}
		if tag != "" {
			tag = "`" + tag + "`"
		}
		fmt.Fprintf(&b, "\tF%d %s %s\n", i, typ, tag)
	}
	return b.String()
}

// typ returns a Go type and the kind of value its constraints apply to: "int", "float", "string", "list" (a
// slice or array of strings or integers), "bool" or "" (none fit).
func (g *randomPackage) typ(owner, depth int) (string, string) {
	n := 16
	if depth > 0 {
		n = 23
	}
	switch g.r.IntN(n) {
	case 0:
		return "bool", "bool"
	case 1:
		return []string{"int", "int8", "int16", "int32", "int64"}[g.r.IntN(5)], "int"
	case 2:
		return []string{"uint", "uint8", "uint16", "uint32", "uint64"}[g.r.IntN(5)], "int"
	case 3:
		return []string{"float32", "float64"}[g.r.IntN(2)], "float"
	case 4, 5:
		return "string", "string"
	case 6:
		return "[]byte", ""
	case 7:
		return "time.Time", ""
	case 8:
		return "json.RawMessage", ""
	case 9:
		return "json.Number", ""
	case 10:
		return "any", ""
	case 11:
		return "Level", ""
	case 12:
		return "Count", "int"
	case 13:
		return "*string", "string"
	case 14:
		return "[]string", "list"
	case 15:
		return "[2]int", "" // an array's length is its only count
	case 16:
		if owner+1 < g.n {
			return fmt.Sprintf("A%d", owner+1+g.r.IntN(g.n-owner-1)), ""
		}
		return "*A" + fmt.Sprint(g.r.IntN(g.n)), ""
	case 17:
		return "*A" + fmt.Sprint(g.r.IntN(g.n)), ""
	case 18:
		return "[]A" + fmt.Sprint(g.r.IntN(g.n)), ""
	case 19:
		return "map[string]A" + fmt.Sprint(g.r.IntN(g.n)), ""
	case 20:
		elem, _ := g.typ(owner, depth-1)
		return "[]" + elem, ""
	case 21:
		elem, _ := g.typ(owner, depth-1)
		if strings.HasPrefix(elem, "*") {
			return elem, ""
		}
		return "*" + elem, ""
	default:
		g.anon++
		return "struct {\n" + g.fields(owner, depth-1) + "}", ""
	}
}

// constraints picks jsonschema keywords that fit kind and never contradict each other, or none.
func (g *randomPackage) constraints(kind string) string {
	if g.r.IntN(2) == 0 {
		return ""
	}
	switch kind {
	case "int":
		return []string{"minimum=1,maximum=100", "minimum=0", "exclusiveMaximum=50", "enum=1,enum=7"}[g.r.IntN(4)]
	case "float":
		return []string{"minimum=-1.5,maximum=1e3", "exclusiveMinimum=0,exclusiveMaximum=1"}[g.r.IntN(2)]
	case "string":
		return []string{"minLength=1,maxLength=8", "pattern=^[a-z]*$", "enum=red,enum=green", "format=date", "format=date-time"}[g.r.IntN(5)]
	case "list":
		return []string{"minItems=1,maxItems=3", "maxItems=2"}[g.r.IntN(2)]
	}
	return ""
}

// randomTest is the test file of the random package.
func randomTest(n int, seed uint64) string {
	var cases []string
	for i := range n {
		cases = append(cases, fmt.Sprintf("\t{\"A%d\", (&R%d{}).TypeshiftAnswerType(), func() any { return new(A%d) }},", i, i, i))
	}
	return strings.ReplaceAll(strings.ReplaceAll(randomTestTemplate, "CASES", strings.Join(cases, "\n")), "SEED", fmt.Sprint(seed))
}

// randomTestTemplate holds the differential check of the random package's answer decoders.
const randomTestTemplate = `package random

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chattest"
)

var cases = []struct {
	name  string
	ans   agent.AnswerType
	fresh func() any
}{
CASES
}

var errUnjudged = errors.New("the validator panics")

func validate(s *jsonschema.Schema, doc []byte) (err error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	defer func() {
		if recover() != nil {
			err = errUnjudged
		}
	}()
	return s.Validate(inst)
}

// mutate changes one value of doc: drops a property, nulls or retypes a value, or adds an unknown property.
func mutate(r *rand.Rand, doc []byte) []byte {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return doc
	}
	var objects []map[string]any
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			objects = append(objects, x)
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if len(objects) == 0 {
		return doc
	}
	o := objects[r.IntN(len(objects))]
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	values := []any{nil, "x", -1.0, 1e300, true, []any{}, map[string]any{}, "2026-01-02", 300.0, 0.5}
	switch {
	case len(keys) == 0 || r.IntN(5) == 0:
		o["zz_unknown"] = 1
	case r.IntN(3) == 0:
		delete(o, keys[r.IntN(len(keys))])
	default:
		o[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
	}
	out, err := json.Marshal(v)
	if err != nil {
		return doc
	}
	return out
}

func TestRandomAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(SEED, 3))
	accepted, refused := 0, 0
	for _, c := range cases {
		c := c
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.ans.Schema))
		if err != nil {
			t.Fatal(err)
		}
		comp := jsonschema.NewCompiler()
		comp.AssertFormat()
		if err := comp.AddResource("answer.json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := comp.Compile("answer.json")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		check := func(doc []byte) {
			got, genErr := c.ans.Decode(doc)
			refErr := validate(s, doc)
			if refErr == errUnjudged {
				return
			}
			want := c.fresh()
			if refErr == nil {
				refErr = json.Unmarshal(doc, want)
			}
			switch {
			case genErr != nil && refErr != nil:
				refused++
			case genErr != nil:
				t.Errorf("%s: the generated decoder refuses %s (%v), which encoding/json and the schema accept", c.name, doc, genErr)
			case refErr != nil:
				t.Errorf("%s: the generated decoder accepts %s, which encoding/json and the schema refuse (%v)", c.name, doc, refErr)
			default:
				accepted++
				g, err1 := json.Marshal(got)
				w, err2 := json.Marshal(want)
				if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
					t.Errorf("%s: for %s the generated decoder reads %s, encoding/json %s", c.name, doc, g, w)
				}
			}
		}
		for seed := range int64(40) {
			doc, err := chattest.GenerateArguments(c.ans.Schema, seed)
			if err != nil {
				continue // a schema whose every path recurses: the generator gives up
			}
			check(doc)
			for range 4 {
				check(mutate(r, doc))
			}
		}
	}
	t.Logf("accepted %d, refused %d", accepted, refused)
	if accepted == 0 || refused == 0 {
		t.Errorf("the documents did not exercise both sides: accepted %d, refused %d", accepted, refused)
	}
}
`
