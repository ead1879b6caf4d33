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
	fd := p.declareMethod(named)
	if fd == nil {
		p.report(ts.Name, "TSH014", Error, declareProblem(named, obj.Name()))
		return nil
	}
	set.Tools = p.readDeclare(named, fd, p.isAddTool)
	p.out.Toolsets = append(p.out.Toolsets, set)
	return fd
}

// fieldNode returns the syntax of a field of ts, or ts itself.
func (p *parser) fieldNode(f *types.Var, ts *ast.TypeSpec) ast.Node {
	if n, ok := p.fieldSyntax[f]; ok {
		return n
	}
	return ts
}

// declareMethod returns the syntax of named's Declare method with a pointer receiver, or nil.
func (p *parser) declareMethod(named *types.Named) *ast.FuncDecl {
	for i := range named.NumMethods() {
		m := named.Method(i)
		if m.Name() != "Declare" {
			continue
		}
		sig := m.Type().(*types.Signature)
		if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr || sig.Params().Len() != 0 || sig.Results().Len() != 0 {
			return nil
		}
		return p.funcSyntax[m]
	}
	return nil
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
