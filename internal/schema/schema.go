package schema

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// Error reports a type the schema cannot describe, or a tag value it cannot write.
type Error struct {
	// Path leads from the input type to the field, in Go names, such as "SearchInput.Filter.Tags[]".
	Path string
	// GoType is the field's type as the model spells it.
	GoType string
	// Reason says what is wrong.
	Reason string
}

func (e *Error) Error() string {
	if e.GoType == "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s (%s): %s", e.Path, e.GoType, e.Reason)
}

// emptyObject is the schema of a tool that takes no input.
const emptyObject = `{"type":"object","properties":{},"additionalProperties":false}`

// Input returns the JSON Schema (draft 2020-12) of a tool's arguments. t is the input struct type (Kind Struct,
// or Kind Named pointing at one in pkg.Types); nil means a tool without input. The result is an object schema
// with "additionalProperties": false, compact JSON with a stable key order.
func Input(pkg *model.Package, t *model.Type) ([]byte, error) {
	if t == nil {
		return []byte(emptyObject), nil
	}
	g := newGen(pkg)
	root, key, err := g.root(t)
	if err != nil {
		return nil, err
	}
	g.rootKey = key
	g.count(t, nil)
	g.nameDefs()
	s, err := g.structSchema(root, rootPath(root, t), root.Fields, true)
	if err != nil {
		return nil, err
	}
	return g.finish(s), nil
}

// Overrides returns the schema of a tool's settings overrides: an object of only the configurable fields (by
// json name), none required, additionalProperties false.
func Overrides(pkg *model.Package, settings *model.Type, configurable []string) ([]byte, error) {
	if settings == nil {
		if len(configurable) > 0 {
			return nil, &Error{Path: "settings", Reason: "configurable fields named without a settings type"}
		}
		return []byte(emptyObject), nil
	}
	g := newGen(pkg)
	root, key, err := g.root(settings)
	if err != nil {
		return nil, err
	}
	path := rootPath(root, settings)
	var fields []*model.Field
	for _, name := range configurable {
		i := slices.IndexFunc(root.Fields, func(f *model.Field) bool { return f.JSONName == name })
		if i < 0 {
			return nil, &Error{Path: path, GoType: root.GoType, Reason: fmt.Sprintf("no field with json name %q to make configurable", name)}
		}
		if !slices.Contains(fields, root.Fields[i]) {
			fields = append(fields, root.Fields[i])
		}
	}
	// Keep declaration order, whatever order the configurable names came in.
	slices.SortStableFunc(fields, func(a, b *model.Field) int {
		return slices.Index(root.Fields, a) - slices.Index(root.Fields, b)
	})
	// The overrides object holds only some of the settings' fields, so it cannot stand for the settings type:
	// a settings type that contains itself goes under $defs whole.
	if key != "" {
		g.uses[key] = 1
	}
	for _, f := range fields {
		g.count(f.Type, []string{key})
	}
	g.nameDefs()
	s, err := g.structSchema(root, path, fields, false)
	if err != nil {
		return nil, err
	}
	return g.finish(s), nil
}

// gen writes one schema. Named types are tracked by their model key: a named type that contains itself, or a
// named struct met more than once, goes under $defs.
type gen struct {
	pkg *model.Package
	// rootKey is the key of the root type, referred to as "#" from inside itself.
	rootKey string
	// uses counts the places each named type appears; recursive marks those found inside themselves.
	uses      map[string]int
	recursive map[string]bool
	// defNames maps the keys written under $defs to their names; defs holds the bodies written so far.
	defNames map[string]string
	defs     map[string]*object
}

func newGen(pkg *model.Package) *gen {
	if pkg == nil {
		pkg = &model.Package{}
	}
	return &gen{
		pkg:       pkg,
		uses:      map[string]int{},
		recursive: map[string]bool{},
		defNames:  map[string]string{},
		defs:      map[string]*object{},
	}
}

// root resolves the input or settings type to its struct.
func (g *gen) root(t *model.Type) (*model.Type, string, error) {
	rt, key, err := g.resolve(t, t.GoType)
	if err != nil {
		return nil, "", err
	}
	if rt.Kind == model.Pointer && rt.Elem != nil {
		rt, key, err = g.resolve(rt.Elem, t.GoType)
		if err != nil {
			return nil, "", err
		}
	}
	if rt.Kind != model.Struct {
		return nil, "", &Error{Path: t.GoType, GoType: t.GoType, Reason: "a tool's input and settings must be structs"}
	}
	return rt, key, nil
}

func rootPath(rt, t *model.Type) string {
	if rt.GoType != "" {
		return strings.TrimPrefix(rt.GoType, "*")
	}
	if t.GoType != "" {
		return strings.TrimPrefix(t.GoType, "*")
	}
	return "input"
}

// resolve follows Named references to the type they name. key is the named type's key, or "" for an unnamed
// type.
func (g *gen) resolve(t *model.Type, path string) (*model.Type, string, error) {
	if t == nil {
		return nil, "", &Error{Path: path, Reason: "missing type"}
	}
	key := t.Key
	for range 16 {
		if t.Kind != model.Named {
			return t, key, nil
		}
		next, ok := g.pkg.Types[t.Key]
		if !ok || next == nil {
			return nil, "", &Error{Path: path, GoType: t.GoType, Reason: fmt.Sprintf("named type %q is not in the package's type table", t.Key)}
		}
		t = next
	}
	return nil, "", &Error{Path: path, GoType: t.GoType, Reason: "named type refers to itself without a struct in between"}
}

// count walks the type as the schema will, counting named types and finding the ones that contain themselves.
// Errors are left for the writing pass, which reports them with their path.
func (g *gen) count(t *model.Type, stack []string) {
	rt, key, err := g.resolve(t, "")
	if err != nil {
		return
	}
	if key != "" {
		if slices.Contains(stack, key) {
			g.recursive[key] = true
			return
		}
		g.uses[key]++
		if g.uses[key] > 1 {
			return
		}
		stack = append(stack, key)
	}
	switch rt.Kind {
	case model.Struct:
		for _, f := range rt.Fields {
			if f != nil {
				g.count(f.Type, stack)
			}
		}
	case model.Slice, model.Array, model.Map, model.Pointer:
		if rt.Elem != nil {
			g.count(rt.Elem, stack)
		}
	}
}

// isDef reports whether the named type with this key is written under $defs.
func (g *gen) isDef(key string) bool {
	_, ok := g.defNames[key]
	return ok
}

// nameDefs picks the named types that go under $defs and names them: by their Go name, or by their full key
// where two share a Go name.
func (g *gen) nameDefs() {
	var keys []string
	for key, n := range g.uses {
		if key == g.rootKey {
			continue
		}
		t, _, err := g.resolve(&model.Type{Kind: model.Named, Key: key}, "")
		if err != nil {
			continue
		}
		if g.recursive[key] || (t.Kind == model.Struct && n > 1) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	short := map[string]int{}
	for _, k := range keys {
		short[shortName(k)]++
	}
	for _, k := range keys {
		name := shortName(k)
		if short[name] > 1 {
			name = sanitize(k)
		}
		g.defNames[k] = name
	}
}

// shortName is the Go name of the type with this key: "example.com/x.Filter" gives "Filter".
func shortName(key string) string {
	if strings.ContainsAny(key, "[]") {
		return sanitize(key)
	}
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		key = key[i+1:]
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	return sanitize(key)
}

// sanitize keeps a $defs name to letters, digits and underscores, so that it needs no escaping in a JSON
// pointer.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return strings.Trim(string(b), "_")
}

// finish adds the $defs and writes the schema.
func (g *gen) finish(s *object) []byte {
	if len(g.defs) > 0 {
		names := make([]string, 0, len(g.defs))
		for name := range g.defs {
			names = append(names, name)
		}
		slices.Sort(names)
		defs := newMap()
		for _, name := range names {
			defs.set(name, g.defs[name])
		}
		s.set("$defs", defs)
	}
	return s.appendTo(nil)
}

// ref returns the reference to a named type written elsewhere, writing its definition the first time.
func (g *gen) ref(rt *model.Type, key, path string) (*object, error) {
	s := newSchema()
	if key == g.rootKey {
		s.set("$ref", str("#"))
		return s, nil
	}
	name := g.defNames[key]
	s.set("$ref", str("#/$defs/"+name))
	if _, done := g.defs[name]; done {
		return s, nil
	}
	// Reserve the name first: the body may refer to itself.
	g.defs[name] = nil
	body, nullable, err := g.inline(rt, path)
	if err != nil {
		return nil, err
	}
	if nullable {
		body = widen(body)
	}
	if rt.Doc != "" && !body.has("description") {
		body.set("description", str(rt.Doc))
	}
	g.defs[name] = body
	return s, nil
}

// value returns the schema of a value of type t, without null, and whether t also accepts null. Named types
// under $defs, and the root type, are references.
func (g *gen) value(t *model.Type, path string) (*object, bool, error) {
	rt, key, err := g.resolve(t, path)
	if err != nil {
		return nil, false, err
	}
	nullable := t.Nullable || rt.Nullable
	if key != "" && (key == g.rootKey || g.isDef(key)) {
		s, err := g.ref(rt, key, path)
		return s, nullable, err
	}
	s, n, err := g.inline(rt, path)
	return s, nullable || n, err
}

// full is value with null added where the type accepts it.
func (g *gen) full(t *model.Type, path string) (*object, error) {
	s, nullable, err := g.value(t, path)
	if err != nil {
		return nil, err
	}
	if nullable {
		s = widen(s)
	}
	return s, nil
}

// inline writes the schema of the resolved type rt itself.
func (g *gen) inline(rt *model.Type, path string) (*object, bool, error) {
	s := newSchema()
	nullable := rt.Nullable
	switch rt.Kind {
	case model.Pointer:
		if rt.Elem == nil {
			return nil, false, &Error{Path: path, GoType: rt.GoType, Reason: "pointer without an element type"}
		}
		elem, _, err := g.value(rt.Elem, path)
		return elem, true, err
	case model.Bool:
		s.set("type", str("boolean"))
	case model.Int:
		s.set("type", str("integer"))
		if bits := rt.Bits; bits > 0 && bits < 64 {
			s.set("minimum", num(math.MinInt64>>(64-bits)))
			s.set("maximum", num(math.MaxInt64>>(64-bits)))
		}
	case model.Uint:
		s.set("type", str("integer"))
		s.set("minimum", num(0))
		if bits := rt.Bits; bits > 0 && bits < 64 {
			s.set("maximum", unum(math.MaxUint64>>(64-bits)))
		}
	case model.Float, model.Number:
		s.set("type", str("number"))
	case model.String:
		s.set("type", str("string"))
		if len(rt.Enum) > 0 {
			enum, err := literals(rt.Enum)
			if err != nil {
				return nil, false, &Error{Path: path, GoType: rt.GoType, Reason: "enum: " + err.Error()}
			}
			s.set("enum", enum)
		}
	case model.Bytes:
		s.set("type", str("string"))
		s.set("contentEncoding", str("base64"))
	case model.Time:
		s.set("type", str("string"))
		s.set("format", str("date-time"))
	case model.Raw:
		// Any JSON value, null included.
		nullable = false
	case model.Struct:
		return s, nullable, g.fillStruct(s, rt, path, rt.Fields, true)
	case model.Slice, model.Array:
		if rt.Elem == nil {
			return nil, false, &Error{Path: path, GoType: rt.GoType, Reason: "array without an element type"}
		}
		items, err := g.full(rt.Elem, path+"[]")
		if err != nil {
			return nil, false, err
		}
		s.set("type", str("array"))
		s.set("items", items)
		if rt.Kind == model.Array {
			s.set("minItems", num(int64(rt.Len)))
			s.set("maxItems", num(int64(rt.Len)))
			nullable = false
		}
	case model.Map:
		if rt.Elem == nil {
			return nil, false, &Error{Path: path, GoType: rt.GoType, Reason: "map without a value type"}
		}
		values, err := g.full(rt.Elem, path+"[]")
		if err != nil {
			return nil, false, err
		}
		s.set("type", str("object"))
		s.set("additionalProperties", values)
	default:
		return nil, false, &Error{Path: path, GoType: rt.GoType, Reason: "no JSON Schema describes this type; use a JSON-shaped type or json.RawMessage"}
	}
	return s, nullable, nil
}

// structSchema writes an object schema of the given fields of rt.
func (g *gen) structSchema(rt *model.Type, path string, fields []*model.Field, required bool) (*object, error) {
	s := newSchema()
	return s, g.fillStruct(s, rt, path, fields, required)
}

// fillStruct makes s the object schema of fields. With required false no property is required, as in settings
// overrides.
func (g *gen) fillStruct(s *object, rt *model.Type, path string, fields []*model.Field, required bool) error {
	props := newMap()
	var req []string
	for _, f := range fields {
		if f == nil {
			continue
		}
		fpath := path + "." + f.GoName
		if f.JSONName == "" {
			return &Error{Path: fpath, GoType: typeName(f.Type), Reason: "field has no JSON name"}
		}
		if props.has(f.JSONName) {
			return &Error{Path: fpath, GoType: typeName(f.Type), Reason: fmt.Sprintf("a second field has the JSON name %q", f.JSONName)}
		}
		fs, err := g.field(f, fpath)
		if err != nil {
			return err
		}
		props.set(f.JSONName, fs)
		if required && f.Required {
			req = append(req, f.JSONName)
		}
	}
	s.set("type", str("object"))
	s.set("properties", props)
	if len(req) > 0 {
		s.set("required", strs(req))
	}
	s.set("additionalProperties", []byte("false"))
	return nil
}

func typeName(t *model.Type) string {
	if t == nil {
		return ""
	}
	return t.GoType
}
