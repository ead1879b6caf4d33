package parse

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/typeshift-go/typeshift/internal/model"
)

// ToolsetPath is the import path of the runtime package whose Toolset a toolset embeds.
const ToolsetPath = "github.com/typeshift-go/typeshift/toolset"

// Package reads the toolsets and agents that the type-checked files of one package declare. Every declaration it cannot
// read is reported to r with its TSH code and left out of the model, so the model holds only what the
// generator can write. It returns a package with no toolsets and no agents when there is nothing to generate.
func Package(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info, r Reporter) *model.Package {
	if r == nil {
		r = Discard
	}
	p := &parser{
		fset:  fset,
		files: files,
		pkg:   pkg,
		info:  info,
		r:     r,
		out: &model.Package{
			Path:    pkg.Path(),
			Name:    pkg.Name(),
			Types:   map[string]*model.Type{},
			Imports: map[string]string{},
		},
		described: map[string]*described{},
		inFlight:  map[string]bool{},
	}
	p.indexSyntax()
	p.readToolsets()
	p.checkNames()
	p.readAgents()
	return p.out
}

// parser holds the state of reading one package.
type parser struct {
	fset  *token.FileSet
	files []*ast.File
	pkg   *types.Package
	info  *types.Info
	r     Reporter
	out   *model.Package

	// fieldSyntax and typeSyntax find the declarations of the package's fields and named types, for their
	// doc comments, tags and positions.
	fieldSyntax map[*types.Var]*ast.Field
	// foreign caches the files of other packages read for their fields' doc comments (nil when unreadable).
	foreign    map[string]*foreignFile
	typeSyntax map[*types.TypeName]typeDecl
	funcSyntax map[*types.Func]*ast.FuncDecl

	// described caches what each named type turned out to be, so each problem is reported once.
	described map[string]*described
	// inFlight holds the named non-struct types being described, to stop recursion through them.
	inFlight map[string]bool

	// toolPos remembers where each tool was declared, for duplicate-name reports.
	toolPos map[*model.Tool]chainPos
}

// typeDecl is a named type's declaration syntax.
type typeDecl struct {
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
}

// chainPos holds the positions a tool's diagnostics point at.
type chainPos struct {
	call     ast.Node // the whole chain
	nameArg  ast.Expr // WithName's argument, or nil
	addTool  *ast.CallExpr
	declName string
}

// report sends a diagnostic about node.
func (p *parser) report(node ast.Node, code string, sev Severity, msg string, fixes ...Fix) {
	d := Diagnostic{Code: code, Severity: sev, Message: msg, Fixes: fixes}
	if node != nil {
		d.Pos, d.End = node.Pos(), node.End()
	}
	p.r.Report(d)
}

// reportAt sends a diagnostic about a position without syntax, such as a field of an imported type.
func (p *parser) reportAt(pos token.Pos, code string, msg string) {
	p.r.Report(Diagnostic{Pos: pos, End: pos, Code: code, Severity: Error, Message: msg})
}

// indexSyntax maps the package's objects to their declarations.
func (p *parser) indexSyntax() {
	p.fieldSyntax = map[*types.Var]*ast.Field{}
	p.typeSyntax = map[*types.TypeName]typeDecl{}
	p.funcSyntax = map[*types.Func]*ast.FuncDecl{}
	p.toolPos = map[*model.Tool]chainPos{}
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.TYPE {
					return true
				}
				for _, s := range n.Specs {
					ts := s.(*ast.TypeSpec)
					obj, ok := p.info.Defs[ts.Name].(*types.TypeName)
					if !ok {
						continue
					}
					doc := ts.Doc
					if doc == nil && len(n.Specs) == 1 {
						doc = n.Doc
					}
					p.typeSyntax[obj] = typeDecl{spec: ts, doc: doc}
				}
			case *ast.FuncDecl:
				if fn, ok := p.info.Defs[n.Name].(*types.Func); ok {
					p.funcSyntax[fn] = n
				}
			case *ast.StructType:
				for _, fld := range n.Fields.List {
					if len(fld.Names) == 0 {
						if v, ok := p.info.Defs[embeddedIdent(fld.Type)].(*types.Var); ok {
							p.fieldSyntax[v] = fld
						}
						continue
					}
					for _, name := range fld.Names {
						if v, ok := p.info.Defs[name].(*types.Var); ok {
							p.fieldSyntax[v] = fld
						}
					}
				}
			}
			return true
		})
	}
}

// embeddedIdent returns the identifier naming an embedded field's type: T, *T, pkg.T, T[int].
func embeddedIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// sortedByPos returns objects in declaration order.
func sortedByPos[T types.Object](objs []T) []T {
	slices.SortFunc(objs, func(a, b T) int { return cmp.Compare(a.Pos(), b.Pos()) })
	return objs
}
