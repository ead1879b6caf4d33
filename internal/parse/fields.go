package parse

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"unicode"

	"github.com/typeshift-go/typeshift/internal/model"
)

// candidate is a struct field as encoding/json finds it, before name conflicts are settled.
type candidate struct {
	v      *types.Var
	tag    string
	name   string
	tagged bool
	depth  int
	goPath string
}

// structType describes a struct's fields as encoding/json sees them. mt, when not nil, is the named type's
// entry to fill in.
func (d *describer) structType(st *types.Struct, goType, path string, mt *model.Type) *model.Type {
	if mt == nil {
		mt = &model.Type{Kind: model.Struct, GoType: goType}
	}
	var cands []candidate
	d.collect(st, "", 0, &cands)
	if d.err != nil {
		return nil
	}
	// Settle conflicts as encoding/json does: the shallowest field wins, a tagged one over untagged ones;
	// ties drop the name altogether.
	byName := map[string][]int{}
	for i, c := range cands {
		byName[c.name] = append(byName[c.name], i)
	}
	tracked := 0
	for i, c := range cands {
		if !dominant(cands, byName[c.name], i) {
			continue
		}
		f := d.field(c, path)
		if f == nil {
			return nil
		}
		if f.Required || f.Constraints.Default != "" {
			tracked++
		}
		mt.Fields = append(mt.Fields, f)
	}
	if tracked > 64 {
		d.failf("TSH020", nil, token.NoPos, "%s has more than 64 required or defaulted properties; split it into nested structs", goType)
		return nil
	}
	return mt
}

// dominant reports whether candidate i wins its name among the candidates at idx.
func dominant(cands []candidate, idx []int, i int) bool {
	minDepth := cands[idx[0]].depth
	for _, j := range idx {
		minDepth = min(minDepth, cands[j].depth)
	}
	var top []int
	tagged := 0
	for _, j := range idx {
		if cands[j].depth == minDepth {
			top = append(top, j)
			if cands[j].tagged {
				tagged++
			}
		}
	}
	if len(top) == 1 {
		return top[0] == i
	}
	if tagged != 1 {
		return false
	}
	return cands[i].depth == minDepth && cands[i].tagged
}

// collect gathers the candidate fields of st, descending into untagged embedded structs.
func (d *describer) collect(st *types.Struct, prefix string, depth int, out *[]candidate) {
	for i := range st.NumFields() {
		v := st.Field(i)
		tag := st.Tag(i)
		jsonTag := reflect.StructTag(tag).Get("json")
		name, _, _ := strings.Cut(jsonTag, ",")
		if !validJSONName(name) {
			name = "" // encoding/json ignores such a name and uses the field's
		}
		configurable := hasTagWord(reflect.StructTag(tag).Get("typeshift"), "configurable")
		if jsonTag == "-" {
			if configurable {
				d.failf("TSH019", d.p.tagNode(v), v.Pos(), "%s is marked configurable but json:\"-\" keeps it out of stored settings", v.Name())
			}
			continue
		}
		goPath := prefix + v.Name()
		if v.Embedded() && name == "" {
			t := types.Unalias(v.Type())
			if ptr, ok := t.(*types.Pointer); ok {
				if _, isStruct := ptr.Elem().Underlying().(*types.Struct); isStruct {
					d.failf("TSH020", d.p.fieldNodeOf(v), v.Pos(), "the embedded pointer %s is not supported: embed the struct by value or give the field a json name", d.p.goType(t))
					return
				}
			}
			if inner, ok := t.Underlying().(*types.Struct); ok && !isNamed(t, "time", "Time") {
				d.collect(inner, goPath+".", depth+1, out)
				if d.err != nil {
					return
				}
				continue
			}
		}
		if !v.Exported() {
			if configurable {
				d.failf("TSH019", d.p.tagNode(v), v.Pos(), "%s is marked configurable but is unexported, so it cannot be stored; export it", v.Name())
				return
			}
			// Only the package's own fields: a type of another module is not the user's to fix.
			if key := jsonKey(reflect.StructTag(tag)); key != "" && !v.Embedded() && d.p.fieldNodeOf(v) != nil {
				d.failf("TSH020", d.p.tagNode(v), v.Pos(), "the field %s has a %s tag but is unexported, so JSON leaves it out: export it, or drop the tag",
					goPath, key)
				return
			}
			continue
		}
		tagged := name != ""
		if !tagged {
			name = v.Name()
		}
		*out = append(*out, candidate{v: v, tag: tag, name: name, tagged: tagged, depth: depth, goPath: goPath})
	}
}

// field describes one winning field.
func (d *describer) field(c candidate, path string) *model.Field {
	v := c.v
	st := reflect.StructTag(c.tag)
	_, opts, _ := strings.Cut(st.Get("json"), ",")
	f := &model.Field{
		GoName:    v.Name(),
		Path:      c.goPath,
		JSONName:  c.name,
		OmitEmpty: hasTagWord(opts, "omitempty"),
		OmitZero:  hasTagWord(opts, "omitzero"),
	}
	f.Configurable = hasTagWord(st.Get("typeshift"), "configurable")
	fieldPath := path + "." + v.Name()
	if f.Configurable && !storable(v.Type()) {
		d.failf("TSH019", d.p.tagNode(v), v.Pos(), "%s is marked configurable but its type %s cannot be stored as JSON", fieldPath, d.p.goType(v.Type()))
		return nil
	}
	f.Type = d.describe(v.Type(), fieldPath)
	if f.Type == nil {
		if d.err != nil && d.err.node == nil && !d.err.pos.IsValid() {
			d.err.node = d.p.fieldNodeOf(v)
			d.err.pos = v.Pos()
		}
		return nil
	}
	if hasTagWord(opts, "string") {
		switch deref(f.Type).Kind {
		case model.Bool, model.Int, model.Uint, model.Float:
			f.Stringify = true
		case model.String, model.Number:
			d.failf("TSH020", d.p.tagNode(v), v.Pos(), "the ,string option on the %s field %s is not supported: drop it", f.Type.GoType, fieldPath)
			return nil
		}
	}
	if f.OmitZero && !f.Type.HasIsZero && !types.Comparable(v.Type()) {
		d.failf("TSH020", d.p.tagNode(v), v.Pos(), "omitzero on %s needs a comparable type or an IsZero method", fieldPath)
		return nil
	}
	f.Required = !f.OmitEmpty && !f.OmitZero && f.Type.Kind != model.Pointer
	fs, ok := d.p.fieldSyntax[v.Origin()]
	if !ok {
		fs = d.p.foreignField(v.Origin())
	}
	if fs != nil {
		doc := docText(fs.Doc)
		if doc == "" {
			doc = docText(fs.Comment)
		}
		f.Description = fieldDescription(v.Name(), doc)
	}
	cons, desc, req, err := d.p.schemaTag(st.Get("jsonschema"), f.Type)
	if err != "" {
		d.failf("TSH021", d.p.tagNode(v), v.Pos(), "jsonschema tag of %s: %s", fieldPath, err)
		return nil
	}
	if problem := tagConflict(cons, f.Type, f.Stringify); problem != "" {
		d.failf("TSH025", d.p.tagNode(v), v.Pos(), "jsonschema tag of %s: %s", fieldPath, problem)
		return nil
	}
	f.Constraints = cons
	if desc != "" {
		f.Description = desc
	}
	if cons.Default != "" {
		f.Required = false
	}
	if req != nil {
		f.Required = *req
	}
	return f
}

// jsonKey names the first of the json and jsonschema keys a struct tag sets, "" if it sets neither.
func jsonKey(tag reflect.StructTag) string {
	for _, key := range []string{"json", "jsonschema"} {
		if _, ok := tag.Lookup(key); ok {
			return key
		}
	}
	return ""
}

// storable reports whether a value of t can be kept in stored settings.
func storable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Chan, *types.Signature:
		return false
	case *types.Basic:
		return u.Kind() != types.UnsafePointer && u.Info()&types.IsComplex == 0
	case *types.Interface:
		return u.Empty()
	}
	return true
}

// hasTagWord reports whether a comma-separated tag value holds word.
func hasTagWord(list, word string) bool {
	for w := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(w) == word {
			return true
		}
	}
	return false
}

// fieldNodeOf returns a field's syntax, or nil for fields of imported types.
func (p *parser) fieldNodeOf(v *types.Var) ast.Node {
	if f, ok := p.fieldSyntax[v.Origin()]; ok {
		return f
	}
	return nil
}

// tagNode returns a field's tag syntax, or the field, or nil.
func (p *parser) tagNode(v *types.Var) ast.Node {
	f, ok := p.fieldSyntax[v.Origin()]
	if !ok {
		return nil
	}
	if f.Tag != nil {
		return f.Tag
	}
	return f
}

// validJSONName reports whether encoding/json accepts name from a json tag: letters, digits and the punctuation
// it allows, but no quotes, backslashes or control characters.
func validJSONName(name string) bool {
	for _, r := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r):
		case unicode.IsLetter(r), unicode.IsDigit(r):
		default:
			return false
		}
	}
	return true
}

// foreignFile is a source file of another package, read for its comments.
type foreignFile struct {
	fset *token.FileSet
	file *ast.File
}

// foreignField returns the syntax of a field of a type from another package, read from its source file, for
// its doc comment; nil if the file cannot be read. Type information from export data keeps the file and line
// of every field but not its comments.
func (p *parser) foreignField(v *types.Var) *ast.Field {
	pos := p.fset.Position(v.Pos())
	if !pos.IsValid() || pos.Filename == "" {
		return nil
	}
	if p.foreign == nil {
		p.foreign = map[string]*foreignFile{}
	}
	ff, seen := p.foreign[pos.Filename]
	if !seen {
		// A file set of its own keeps the positions of the loaded packages as they are.
		fset := token.NewFileSet()
		if file, err := goparser.ParseFile(fset, pos.Filename, nil, goparser.ParseComments|goparser.SkipObjectResolution); err == nil {
			ff = &foreignFile{fset: fset, file: file}
		}
		p.foreign[pos.Filename] = ff
	}
	if ff == nil {
		return nil
	}
	var found *ast.Field
	ast.Inspect(ff.file, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		for _, fld := range st.Fields.List {
			for _, name := range fld.Names {
				if name.Name == v.Name() && ff.fset.Position(name.Pos()).Line == pos.Line {
					found = fld
					return false
				}
			}
		}
		return true
	})
	return found
}
