package parse

import (
	"fmt"
	"go/ast"
	"go/types"

	"github.com/typeshift-go/typeshift/internal/model"
)

// readToolsets finds every named struct type that embeds toolset.Toolset directly and reads its Declare method.
// Calls of AddTool anywhere else in the package are reported (TSH014).
func (p *parser) readToolsets() {
	declares := map[*ast.FuncDecl]bool{}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if fd := p.readToolsetType(ts); fd != nil {
					declares[fd] = true
				}
			}
		}
	}
	// An AddTool chain outside a toolset's Declare cannot be read: the generator would not know it exists.
	for _, f := range p.files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || declares[fd] || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && p.isAddTool(call) {
					p.report(call, "TSH014", Error,
						"AddTool must be called directly in the toolset's Declare method, not in "+fd.Name.Name+": the generator reads only Declare")
				}
				return true
			})
		}
	}
}

// readToolsetType reads one type declaration if it is a toolset and returns its Declare method's syntax.
func (p *parser) readToolsetType(ts *ast.TypeSpec) *ast.FuncDecl {
	obj, ok := p.info.Defs[ts.Name].(*types.TypeName)
	if !ok {
		return nil
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	direct := -1
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		if isToolsetType(f.Type()) {
			direct = i
			continue
		}
		if ptr, ok := f.Type().(*types.Pointer); ok && isToolsetType(ptr.Elem()) {
			p.report(p.fieldNode(f, ts), "TSH017", Error,
				"embed toolset.Toolset by value, not as a pointer")
			return nil
		}
		if embedsToolset(f.Type(), map[types.Type]bool{}) {
			p.report(p.fieldNode(f, ts), "TSH017", Error, fmt.Sprintf(
				"%s gets toolset.Toolset through %s: a toolset must embed toolset.Toolset directly; share code through functions instead",
				obj.Name(), types.TypeString(f.Type(), types.RelativeTo(p.pkg))))
			return nil
		}
	}
	if direct < 0 {
		return nil
	}
	if ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
		p.report(ts.TypeParams, "TSH017", Error,
			"a toolset cannot have type parameters: the generator writes one set of tools per toolset type")
		return nil
	}
	set := &model.Toolset{TypeName: obj.Name(), Doc: docText(p.typeSyntax[obj].doc)}
	if name := st.Field(direct).Name(); name != "Toolset" {
		set.Field = name // embedded through an alias
	}
	fd, bad := p.declareMethod(named)
	if bad != nil {
		return bad
	}
	if fd == nil {
		p.report(ts.Name, "TSH014", Error, declareProblem(named, obj.Name()))
		return nil
	}
	set.Tools = p.readDeclare(named, fd, p.isAddTool)
	p.out.Toolsets = append(p.out.Toolsets, set)
	p.declared[set.TypeName] = p.addedMethods(fd)
	return fd
}

// addedMethods lists the names of the methods and functions a Declare method passes to AddTool, whether or not
// their chains can be read.
func (p *parser) addedMethods(fd *ast.FuncDecl) []string {
	var out []string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !p.isAddTool(call) {
			return true
		}
		switch a := ast.Unparen(call.Args[0]).(type) {
		case *ast.SelectorExpr:
			out = append(out, a.Sel.Name)
		case *ast.Ident:
			out = append(out, a.Name)
		}
		return true
	})
	return out
}

// checkImportedNames reports (TSH007) each tool of the package whose name a toolset of an imported package
// already uses: an agent that uses both could not tell them apart. Duplicates within the package are
// checkNames' to report.
func (p *parser) checkImportedNames(imported []Toolset) {
	type owner struct{ pkg, typ, method string }
	first := map[string]owner{}
	for _, ts := range imported {
		if ts.Pkg == p.pkg.Path() {
			continue
		}
		for _, t := range ts.Tools {
			if _, ok := first[t.Name]; !ok {
				first[t.Name] = owner{ts.Pkg, ts.Type, t.Method}
			}
		}
	}
	if len(first) == 0 {
		return
	}
	for _, set := range p.out.Toolsets {
		for _, t := range set.Tools {
			o, ok := first[t.Name]
			if !ok {
				continue
			}
			pos := p.toolPos[t]
			var at ast.Node = pos.nameArg
			if at == nil && pos.addTool != nil && len(pos.addTool.Args) == 1 {
				at = pos.addTool.Args[0]
			}
			tool := set.TypeName + "." + t.Method
			if t.Func {
				tool = "function " + t.Method + " of " + set.TypeName
			}
			p.importClash[t.Name] = true
			p.report(at, "TSH007", Error, fmt.Sprintf("tool name %q of %s is already used by %s.%s in %s: name the tool with WithName",
				t.Name, tool, o.typ, o.method, o.pkg))
		}
	}
}

// fieldNode returns the syntax of a field of ts, or ts itself.
func (p *parser) fieldNode(f *types.Var, ts *ast.TypeSpec) ast.Node {
	if n, ok := p.fieldSyntax[f]; ok {
		return n
	}
	return ts
}

// declareMethod returns the syntax of named's Declare method with a pointer receiver, or nil. A Declare method
// with a value receiver or with parameters or results is reported here (TSH014), once, and its syntax is
// returned as bad, so that the AddTool chains in it are not reported again as being outside Declare.
func (p *parser) declareMethod(named *types.Named) (fd, bad *ast.FuncDecl) {
	for i := range named.NumMethods() {
		m := named.Method(i)
		if m.Name() != "Declare" {
			continue
		}
		fd := p.funcSyntax[m]
		sig := m.Type().(*types.Signature)
		name := named.Obj().Name()
		if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr {
			if fd != nil {
				p.report(fd.Recv, "TSH014", Error, fmt.Sprintf(
					"Declare of %s has a value receiver, so what it declares is lost with the copy: use a pointer receiver, func (x *%s) Declare()",
					name, name))
			}
			return nil, fd
		}
		if sig.Params().Len() != 0 || sig.Results().Len() != 0 {
			if fd != nil {
				p.report(fd.Name, "TSH014", Error, fmt.Sprintf(
					"Declare of %s takes no parameters and returns nothing: func (x *%s) Declare()", name, name))
			}
			return nil, fd
		}
		return fd, nil
	}
	return nil, nil
}

// isToolsetType reports whether t is toolset.Toolset.
func isToolsetType(t types.Type) bool {
	return isNamed(t, ToolsetPath, "Toolset")
}

// isNamed reports whether t is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Pkg() != nil && obj.Pkg().Path() == path && obj.Name() == name
}

// embedsToolset reports whether a struct type embeds toolset.Toolset at any depth.
func embedsToolset(t types.Type, seen map[types.Type]bool) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Embedded() && (isToolsetType(f.Type()) || embedsToolset(f.Type(), seen)) {
			return true
		}
	}
	return false
}

// isAddTool reports whether call calls toolset.Toolset's AddTool method.
func (p *parser) isAddTool(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := p.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Name() != "AddTool" {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	return isToolsetType(t)
}

// declareProblem says why a toolset has no Declare method the generator can read, and what to write instead.
func declareProblem(named *types.Named, name string) string {
	want := fmt.Sprintf("func (x *%s) Declare()", name)
	for i := range named.NumMethods() {
		m := named.Method(i)
		if m.Name() != "Declare" {
			continue
		}
		sig := m.Type().(*types.Signature)
		if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr {
			return fmt.Sprintf("toolset %s declares Declare on a value receiver, so its AddTool chains would register on a copy: declare it as %s", name, want)
		}
		return fmt.Sprintf("toolset %s's Declare takes parameters or returns results: declare it as %s, with one AddTool chain per tool", name, want)
	}
	return fmt.Sprintf("toolset %s has no Declare method: add %s with one AddTool chain per tool", name, want)
}
