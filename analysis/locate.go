package analysis

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// locator finds the syntax that the analyzer's own diagnostics point at. Models carry no positions (so that the
// generator's output does not depend on them), so the analyzer looks declarations up again by name.
type locator struct {
	pass  *analysis.Pass
	files map[*token.File]bool
	// declares maps a toolset type's name to its Declare method.
	declares map[string]*ast.FuncDecl
}

func newLocator(pass *analysis.Pass, files []*ast.File) *locator {
	l := &locator{pass: pass, files: map[*token.File]bool{}, declares: map[string]*ast.FuncDecl{}}
	for _, f := range files {
		l.files[pass.Fset.File(f.FileStart)] = true
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != "Declare" || fd.Body == nil {
				continue
			}
			if name := recvTypeName(fd.Recv.List[0].Type); name != "" {
				l.declares[name] = fd
			}
		}
	}
	return l
}

// recvTypeName returns T for a receiver of type T or *T.
func recvTypeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// inPackage reports whether pos lies in one of the files the analyzer checks.
func (l *locator) inPackage(pos token.Pos) bool {
	return pos.IsValid() && l.files[l.pass.Fset.File(pos)]
}

// typeName returns the position of a package-level type's name, or the package clause when it has none here.
func (l *locator) typeName(name string) (token.Pos, token.Pos) {
	if obj := l.pass.Pkg.Scope().Lookup(name); obj != nil && l.inPackage(obj.Pos()) {
		return obj.Pos(), obj.Pos() + token.Pos(len(name))
	}
	return l.pass.Files[0].Package, token.NoPos
}

// toolChain returns the AddTool call of a toolset's tool, found by the method or function it names. The model
// names a function of another package as "pkg.F"; the call's argument ends in F either way.
func (l *locator) toolChain(toolset, method string) (add *ast.CallExpr, chain ast.Expr) {
	fd := l.declares[toolset]
	if fd == nil {
		return nil, nil
	}
	if i := strings.LastIndex(method, "."); i >= 0 {
		method = method[i+1:]
	}
	for _, st := range fd.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		if add := addToolCall(es.X); add != nil && len(add.Args) == 1 && funcName(add.Args[0]) == method {
			return add, es.X
		}
	}
	return nil, nil
}

// toolName returns the range to report a problem with a tool's name at: WithName's argument when the chain has
// one, the argument of AddTool otherwise, and the toolset's type name when the chain cannot be found.
func (l *locator) toolName(toolset, method string) (token.Pos, token.Pos) {
	add, chain := l.toolChain(toolset, method)
	if add == nil {
		return l.typeName(toolset)
	}
	for e := chain; e != nil; {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			break
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			break
		}
		if sel.Sel.Name == "WithName" && len(call.Args) == 1 {
			return call.Args[0].Pos(), call.Args[0].End()
		}
		e = sel.X
	}
	return add.Args[0].Pos(), add.Args[0].End()
}

// tool returns the range of a tool's AddTool argument, or the toolset's type name.
func (l *locator) tool(toolset, method string) (token.Pos, token.Pos) {
	if add, _ := l.toolChain(toolset, method); add != nil {
		return add.Args[0].Pos(), add.Args[0].End()
	}
	return l.typeName(toolset)
}

// addToolCall unwinds a builder chain to its innermost call, AddTool(fn), or returns nil.
func addToolCall(e ast.Expr) *ast.CallExpr {
	for {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		if sel.Sel.Name == "AddTool" {
			return call
		}
		e = sel.X
	}
}

// funcName returns M of a method value x.M or a qualified function p.M, F of a function F, or "".
func funcName(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// field returns the position of a struct field of a named type of this package, given the type's qualified key
// (such as "example.com/x.Filter") and the field's selector path (such as "Base.ID"). It reports false when the
// type or field is elsewhere.
func (l *locator) field(key, path string) (token.Pos, token.Pos, bool) {
	i := strings.LastIndex(key, ".")
	if i < 0 || key[:i] != l.pass.Pkg.Path() {
		return token.NoPos, token.NoPos, false
	}
	obj, ok := l.pass.Pkg.Scope().Lookup(key[i+1:]).(*types.TypeName)
	if !ok {
		return token.NoPos, token.NoPos, false
	}
	var v *types.Var
	t := obj.Type()
	for _, name := range strings.Split(path, ".") {
		st, ok := derefStruct(t)
		if !ok {
			return token.NoPos, token.NoPos, false
		}
		v = nil
		for j := 0; j < st.NumFields(); j++ {
			if st.Field(j).Name() == name {
				v = st.Field(j)
				break
			}
		}
		if v == nil {
			return token.NoPos, token.NoPos, false
		}
		t = v.Type()
	}
	if v == nil || !l.inPackage(v.Pos()) {
		return token.NoPos, token.NoPos, false
	}
	return v.Pos(), v.Pos() + token.Pos(len(v.Name())), true
}

func derefStruct(t types.Type) (*types.Struct, bool) {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}
