package schema_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/schema"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
)

// randomTypes builds model types at random, with tag keywords that fit their kinds, and named structs that may
// refer to each other and to themselves.
type randomTypes struct {
	r     *rand.Rand
	pkg   *model.Package
	names []string
}

func newRandomTypes(seed uint64) *randomTypes {
	g := &randomTypes{r: rand.New(rand.NewPCG(seed, 1)), pkg: &model.Package{Types: map[string]*model.Type{}}}
	for i := range 1 + g.r.IntN(4) {
		key := fmt.Sprintf("example.com/p.T%d", i)
		g.names = append(g.names, key)
		g.pkg.Types[key] = &model.Type{Kind: model.Struct, Key: key, GoType: fmt.Sprintf("T%d", i), Doc: "A named struct."}
	}
	for _, key := range g.names {
		g.pkg.Types[key].Fields = g.fields(2)
	}
	return g
}

func (g *randomTypes) fields(depth int) []*model.Field {
	var fs []*model.Field
	for i := range g.r.IntN(4) {
		t := g.typ(depth)
		f := &model.Field{
			GoName: fmt.Sprintf("F%d", i), JSONName: fmt.Sprintf("f%d", i), Type: t,
			Required: g.r.IntN(2) == 0, Constraints: g.constraints(t),
		}
		if g.r.IntN(3) == 0 {
			f.Description = "Says \"what\" <to> send\n\tand how: é ✓ \u2028."
		}
		fs = append(fs, f)
	}
	return fs
}

func (g *randomTypes) typ(depth int) *model.Type {
	n := 12
	if depth > 0 {
		n = 17
	}
	switch g.r.IntN(n) {
	case 0:
		return &model.Type{Kind: model.Bool, GoType: "bool"}
	case 1:
		bits := []int{8, 16, 32, 64}[g.r.IntN(4)]
		return &model.Type{Kind: model.Int, Bits: bits, GoType: fmt.Sprintf("int%d", bits)}
	case 2:
		bits := []int{8, 16, 32, 64}[g.r.IntN(4)]
		return &model.Type{Kind: model.Uint, Bits: bits, GoType: fmt.Sprintf("uint%d", bits)}
	case 3:
		return &model.Type{Kind: model.Float, Bits: 64, GoType: "float64"}
	case 4, 5:
		t := &model.Type{Kind: model.String, GoType: "string"}
		if g.r.IntN(3) == 0 {
			t.Key, t.GoType, t.Enum = "example.com/p.Level", "Level", []string{`"low"`, `"high"`}
		}
		return t
	case 6:
		return &model.Type{Kind: model.Bytes, GoType: "[]byte", Nullable: true}
	case 7:
		return &model.Type{Kind: model.Time, GoType: "time.Time"}
	case 8:
		return &model.Type{Kind: model.Raw, GoType: "json.RawMessage", Nullable: true}
	case 9, 10, 11:
		key := g.names[g.r.IntN(len(g.names))]
		return &model.Type{Kind: model.Named, Key: key, GoType: g.pkg.Types[key].GoType}
	case 12:
		return &model.Type{Kind: model.Struct, GoType: "struct{...}", Fields: g.fields(depth - 1)}
	case 13:
		e := g.typ(depth - 1)
		return &model.Type{Kind: model.Slice, Elem: e, GoType: "[]" + e.GoType, Nullable: true}
	case 14:
		e := g.typ(depth - 1)
		return &model.Type{Kind: model.Array, Elem: e, Len: g.r.IntN(3), GoType: "[n]" + e.GoType}
	case 15:
		e := g.typ(depth - 1)
		return &model.Type{Kind: model.Map, Elem: e, MapKey: "string", GoType: "map[string]" + e.GoType, Nullable: true}
	default:
		e := g.typ(depth - 1)
		if e.Kind == model.Pointer {
			return e
		}
		return &model.Type{Kind: model.Pointer, Elem: e, GoType: "*" + e.GoType, Nullable: true}
	}
}

// constraints picks keywords that fit t, as the parser allows them: value keywords for the scalar (through a
// pointer, and for the items of a list), counts for a list.
func (g *randomTypes) constraints(t *model.Type) model.Constraints {
	c := model.Constraints{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}
	list := t
	if list.Kind == model.Pointer {
		list = list.Elem
	}
	scalar := list
	if list.Kind == model.Slice || list.Kind == model.Array {
		scalar = list.Elem
		if scalar.Kind == model.Pointer {
			scalar = scalar.Elem
		}
		if g.r.IntN(2) == 0 {
			c.MinItems, c.MaxItems = 0, 1+g.r.IntN(3)
		}
	}
	if g.r.IntN(2) == 0 {
		c.Title = "T"
	}
	switch scalar.Kind {
	case model.Int, model.Uint, model.Float:
		if g.r.IntN(2) == 0 {
			c.Minimum, c.Maximum = "0", "100"
		}
		if g.r.IntN(3) == 0 {
			c.ExclusiveMaximum = "1e3"
		}
		if list == scalar && g.r.IntN(3) == 0 {
			c.Default, c.Examples = "7", []string{"1", "2"}
		}
	case model.String:
		if g.r.IntN(2) == 0 {
			c.MinLength, c.MaxLength, c.Pattern = 1, 9, `^[a-z]+$`
		}
		if g.r.IntN(3) == 0 {
			c.Enum = []string{`"a"`, `"b"`}
		}
		if g.r.IntN(3) == 0 {
			c.Format = "email"
		}
	case model.Time:
		if g.r.IntN(3) == 0 {
			c.Format = "date"
		}
	}
	return c
}

// TestRandomTypesCompile checks, over many random types, that every schema the package writes is valid against
// the 2020-12 metaschema, compiles, and has its $refs resolve.
func TestRandomTypesCompile(t *testing.T) {
	for seed := range uint64(300) {
		g := newRandomTypes(seed)
		root := &model.Type{Kind: model.Named, Key: g.names[0], GoType: "T0"}
		got, err := schema.Input(g.pkg, root)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := schematest.Compile(got); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, got)
		}
		var names []string
		for _, f := range g.pkg.Types[g.names[0]].Fields {
			names = append(names, f.JSONName)
		}
		over, err := schema.Overrides(g.pkg, root, names)
		if err != nil {
			t.Fatalf("seed %d overrides: %v", seed, err)
		}
		if _, err := schematest.Compile(over); err != nil {
			t.Fatalf("seed %d overrides: %v\n%s", seed, err, over)
		}
	}
}
