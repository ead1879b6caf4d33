package parse

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// described is the outcome of describing one named struct type.
type described struct {
	ok bool
}

// describeError is a type the generator cannot describe. The describer stops at the first one.
type describeError struct {
	code string
	pos  token.Pos
	node ast.Node
	msg  string
}

// describer walks one type; it carries the field path for messages.
type describer struct {
	p *parser
	// root names what is described, such as "the input of SearchTickets".
	root string
	err  *describeError
	// reported is set when the error was already reported (a named type described earlier).
	reported bool
}

// describeInput describes an input or settings struct: the type must be fully describable for the schema and
// the decoder, and may hold no types with their own JSON methods.
func (p *parser) describeInput(t types.Type, at ast.Node, fn string) (*model.Type, bool) {
	d := &describer{p: p, root: fn}
	mt := d.describe(t, "")
	if d.fail(at) {
		return nil, false
	}
	if m := p.findMarshaler(mt, map[string]bool{}); m != "" {
		p.report(at, "TSH020", Error, fmt.Sprintf(
			"%s cannot be a tool: %s in its parameters has its own JSON methods, so the generator cannot describe its schema; use a plain type",
			fn, m))
		return nil, false
	}
	return mt, true
}

// describeResult describes a result type: types with their own JSON methods are encoded by encoding/json.
func (p *parser) describeResult(t types.Type, at ast.Node, fn string) (*model.Type, bool) {
	d := &describer{p: p, root: fn}
	mt := d.describe(t, "")
	return mt, !d.fail(at)
}

// fail reports the describer's error, if any, and says whether there was one.
func (d *describer) fail(at ast.Node) bool {
	if d.err == nil {
		return false
	}
	if d.reported {
		return true
	}
	e := d.err
	msg := e.msg
	switch {
	case e.node != nil:
		d.p.report(e.node, e.code, Error, msg)
	case e.pos.IsValid():
		d.p.reportAt(e.pos, e.code, msg)
	default:
		d.p.report(at, e.code, Error, msg)
	}
	return true
}

// failf records the first error.
func (d *describer) failf(code string, node ast.Node, pos token.Pos, format string, args ...any) {
	if d.err == nil {
		d.err = &describeError{code: code, node: node, pos: pos, msg: fmt.Sprintf(format, args...)}
	}
}

// at names a field path for messages.
func at(path string) string {
	if path == "" {
		return ""
	}
	return " at " + path
}

// describe describes t; path is the Go field path so far, for messages.
func (d *describer) describe(t types.Type, path string) *model.Type {
	if d.err != nil {
		return nil
	}
	p := d.p
	goType := p.goType(t)
	t = types.Unalias(t)
	switch {
	case isNamed(t, "time", "Time"):
		return &model.Type{Kind: model.Time, GoType: goType, HasIsZero: true}
	case isNamed(t, "encoding/json", "RawMessage"):
		return &model.Type{Kind: model.Raw, GoType: goType, Nullable: true}
	case isNamed(t, "encoding/json", "Number"):
		return &model.Type{Kind: model.Number, GoType: goType}
	}
	if n, ok := t.(*types.Named); ok {
		if _, isIface := n.Underlying().(*types.Interface); !isIface && implementsMarshaler(n) {
			return &model.Type{Kind: model.Raw, GoType: goType, Key: typeKey(n), Marshaler: true, Nullable: true}
		}
		if n.TypeParams().Len() > 0 && n.TypeArgs().Len() == 0 {
			d.failf("TSH020", nil, token.NoPos, "the generic type %s%s needs type arguments", goType, at(path))
			return nil
		}
		if _, ok := n.Underlying().(*types.Struct); ok {
			return d.namedStruct(n, goType, path)
		}
		key := typeKey(n)
		if p.inFlight[key] {
			d.failf("TSH020", nil, token.NoPos, "the type %s%s refers to itself without a struct in between, which JSON Schema cannot describe here", goType, at(path))
			return nil
		}
		p.inFlight[key] = true
		defer delete(p.inFlight, key)
		mt := d.describeUnderlying(n.Underlying(), goType, path)
		if mt == nil {
			return nil
		}
		mt.Key = key
		mt.HasIsZero = hasIsZero(n)
		if doc, ok := p.typeSyntax[n.Obj()]; ok {
			mt.Doc = docText(doc.doc)
			if mt.Kind != model.String && hasDirective(doc.doc, "typeshift:enum") {
				d.failf("TSH020", doc.spec, token.NoPos,
					"%s is marked //typeshift:enum, which enumerates string types only, but it is a %s: declare it as a string type, or list the allowed values on the field with jsonschema:\"enum=...\"",
					goType, d.p.goType(n.Underlying()))
				return nil
			}
			if mt.Kind == model.String && hasDirective(doc.doc, "typeshift:enum") {
				mt.Enum = p.enumValues(n)
				if len(mt.Enum) == 0 {
					d.failf("TSH020", doc.spec, token.NoPos, "%s is marked //typeshift:enum but the package declares no constants of it", goType)
					return nil
				}
			}
		}
		return mt
	}
	return d.describeUnderlying(t, goType, path)
}

// describeUnderlying describes an unnamed type, or the underlying type of a named non-struct type.
func (d *describer) describeUnderlying(t types.Type, goType, path string) *model.Type {
	switch u := t.(type) {
	case *types.Basic:
		return d.basic(u, goType, path)
	case *types.Pointer:
		elem := d.describe(u.Elem(), path)
		if elem == nil {
			return nil
		}
		if elem.Kind == model.Pointer {
			d.failf("TSH020", nil, token.NoPos, "the pointer to a pointer %s%s is not supported: use one pointer", goType, at(path))
			return nil
		}
		return &model.Type{Kind: model.Pointer, GoType: goType, Elem: elem, Nullable: true}
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			if _, named := types.Unalias(u.Elem()).(*types.Named); !named {
				return &model.Type{Kind: model.Bytes, GoType: goType, Nullable: true}
			}
		}
		elem := d.describe(u.Elem(), path+"[]")
		if elem == nil {
			return nil
		}
		return &model.Type{Kind: model.Slice, GoType: goType, Elem: elem, Nullable: true}
	case *types.Array:
		elem := d.describe(u.Elem(), path+"[]")
		if elem == nil {
			return nil
		}
		return &model.Type{Kind: model.Array, GoType: goType, Elem: elem, Len: int(u.Len())}
	case *types.Map:
		kb, ok := u.Key().Underlying().(*types.Basic)
		if !ok || kb.Kind() != types.String {
			d.failf("TSH004", nil, token.NoPos, "the map %s%s has %s keys: JSON objects need string keys",
				goType, at(path), d.p.goType(u.Key()))
			return nil
		}
		elem := d.describe(u.Elem(), path+"[]")
		if elem == nil {
			return nil
		}
		return &model.Type{Kind: model.Map, GoType: goType, Elem: elem, MapKey: d.p.goType(u.Key()), Nullable: true}
	case *types.Struct:
		return d.structType(u, goType, path, nil)
	case *types.Interface:
		if u.Empty() {
			return &model.Type{Kind: model.Raw, GoType: "any", Any: true, Nullable: true}
		}
		d.failf("TSH004", nil, token.NoPos, "the interface %s%s has no JSON form: use a concrete type, or any", goType, at(path))
	case *types.Chan:
		d.failf("TSH004", nil, token.NoPos, "the channel %s%s has no JSON form", goType, at(path))
	case *types.Signature:
		d.failf("TSH004", nil, token.NoPos, "the function %s%s has no JSON form", goType, at(path))
	default:
		d.failf("TSH020", nil, token.NoPos, "the type %s%s cannot be described", goType, at(path))
	}
	return nil
}

// basic describes a basic type.
func (d *describer) basic(b *types.Basic, goType, path string) *model.Type {
	k := b.Kind()
	switch {
	case k == types.Bool:
		return &model.Type{Kind: model.Bool, GoType: goType}
	case k == types.String:
		return &model.Type{Kind: model.String, GoType: goType}
	case k == types.Int, k == types.Int64:
		return &model.Type{Kind: model.Int, Bits: 64, GoType: goType}
	case k == types.Int8:
		return &model.Type{Kind: model.Int, Bits: 8, GoType: goType}
	case k == types.Int16:
		return &model.Type{Kind: model.Int, Bits: 16, GoType: goType}
	case k == types.Int32:
		return &model.Type{Kind: model.Int, Bits: 32, GoType: goType}
	case k == types.Uint, k == types.Uint64, k == types.Uintptr:
		return &model.Type{Kind: model.Uint, Bits: 64, GoType: goType}
	case k == types.Uint8:
		return &model.Type{Kind: model.Uint, Bits: 8, GoType: goType}
	case k == types.Uint16:
		return &model.Type{Kind: model.Uint, Bits: 16, GoType: goType}
	case k == types.Uint32:
		return &model.Type{Kind: model.Uint, Bits: 32, GoType: goType}
	case k == types.Float32:
		return &model.Type{Kind: model.Float, Bits: 32, GoType: goType}
	case k == types.Float64:
		return &model.Type{Kind: model.Float, Bits: 64, GoType: goType}
	case k == types.Complex64, k == types.Complex128:
		d.failf("TSH004", nil, token.NoPos, "the complex number %s%s has no JSON form", goType, at(path))
	case k == types.UnsafePointer:
		d.failf("TSH004", nil, token.NoPos, "unsafe.Pointer%s has no JSON form", at(path))
	default:
		d.failf("TSH020", nil, token.NoPos, "the type %s%s cannot be described", goType, at(path))
	}
	return nil
}

// namedStruct describes a named struct type once, into Package.Types, and returns a reference to it.
func (d *describer) namedStruct(n *types.Named, goType, path string) *model.Type {
	p := d.p
	key := typeKey(n)
	ref := &model.Type{Kind: model.Named, GoType: goType, Key: key, HasIsZero: hasIsZero(n)}
	if prev, ok := p.described[key]; ok {
		if !prev.ok {
			d.failf("TSH020", nil, token.NoPos, "%s cannot be described", goType)
			d.reported = true
			return nil
		}
		return ref
	}
	entry := &described{ok: true}
	p.described[key] = entry // set first, so recursion through fields ends here
	mt := &model.Type{Kind: model.Struct, GoType: goType, Key: key, HasIsZero: ref.HasIsZero}
	if doc, ok := p.typeSyntax[n.Obj()]; ok {
		mt.Doc = docText(doc.doc)
	}
	p.out.Types[key] = mt
	sub := &describer{p: p, root: d.root}
	st := sub.structType(n.Underlying().(*types.Struct), goType, goType, mt)
	if st == nil {
		entry.ok = false
		delete(p.out.Types, key)
		d.err, d.reported = sub.err, sub.reported
		return nil
	}
	if n.Obj().Pkg() == p.pkg {
		mt.Layout = p.layout(n.Underlying().(*types.Struct))
	}
	return ref
}

// layout spells a struct's fields, with their tags, as the generated file's stale check writes them (see
// model.Type.Layout). A struct with no fields gets one empty line, so that it is still checked.
func (p *parser) layout(st *types.Struct) []string {
	if st.NumFields() == 0 {
		return []string{""}
	}
	out := make([]string, st.NumFields())
	for i := range st.NumFields() {
		v := st.Field(i)
		line := p.goType(v.Type())
		if !v.Embedded() {
			line = v.Name() + " " + line
		}
		if tag := st.Tag(i); tag != "" {
			if strings.Contains(tag, "`") {
				line += " " + strconv.Quote(tag)
			} else {
				line += " `" + tag + "`"
			}
		}
		out[i] = line
	}
	return out
}

// goType spells t as the generated file spells it.
func (p *parser) goType(t types.Type) string {
	if iface, ok := types.Unalias(t).(*types.Interface); ok && iface.Empty() {
		return "any"
	}
	return types.TypeString(t, p.qualifier)
}

// qualifier names other packages in GoType spellings and records their imports.
func (p *parser) qualifier(pkg *types.Package) string {
	if pkg == p.pkg {
		return ""
	}
	if name, ok := p.out.Imports[pkg.Path()]; ok {
		return name
	}
	name := pkg.Name()
	taken := func(n string) bool {
		for _, v := range p.out.Imports {
			if v == n {
				return true
			}
		}
		return false
	}
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s%d", pkg.Name(), i)
	}
	p.out.Imports[pkg.Path()] = name
	return name
}

// typeKey is a named type's qualified name, such as "example.com/x.Filter".
func typeKey(n *types.Named) string {
	return types.TypeString(n, func(p *types.Package) string { return p.Path() })
}

// hasIsZero reports whether t has an IsZero() bool method, which the omitzero option calls.
func hasIsZero(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, false, nil, "IsZero")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 &&
		types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool])
}

// implementsMarshaler reports whether t (or *t) has a MarshalJSON or MarshalText method, which encoding/json
// would call instead of looking at the fields.
func implementsMarshaler(t types.Type) bool {
	for _, name := range []string{"MarshalJSON", "MarshalText", "UnmarshalJSON", "UnmarshalText"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// findMarshaler returns the GoType of a type reachable from t that implements json.Marshaler, "" if none.
func (p *parser) findMarshaler(t *model.Type, seen map[string]bool) string {
	if t == nil {
		return ""
	}
	switch t.Kind {
	case model.Raw:
		if t.Marshaler {
			return t.GoType
		}
	case model.Named:
		if seen[t.Key] {
			return ""
		}
		seen[t.Key] = true
		return p.findMarshaler(p.out.Types[t.Key], seen)
	case model.Struct:
		for _, f := range t.Fields {
			if m := p.findMarshaler(f.Type, seen); m != "" {
				return m
			}
		}
	case model.Pointer, model.Slice, model.Array, model.Map:
		return p.findMarshaler(t.Elem, seen)
	}
	return ""
}

// docText returns a doc comment's text without directives, trimmed.
func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// hasDirective reports whether a doc comment holds the line //name.
func hasDirective(g *ast.CommentGroup, name string) bool {
	if g == nil {
		return false
	}
	for _, c := range g.List {
		if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == name && strings.HasPrefix(c.Text, "//"+name) {
			return true
		}
	}
	return false
}
