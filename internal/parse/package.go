package parse

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"

	"github.com/typeshift-go/typeshift/internal/model"
)

// ToolsetPath is the import path of the runtime package whose Toolset a toolset embeds.
const ToolsetPath = "github.com/typeshift-go/typeshift/toolset"

// Package reads the toolsets and agents that the type-checked files of one package declare. Every declaration it cannot
// read is reported to r with its TSH code and left out of the model, so the model holds only what the
// generator can write. It returns a package with no toolsets and no agents when there is nothing to generate.
func Package(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info, r Reporter) *model.Package {
	return Read(fset, files, pkg, info, r, Options{}).Package
}

// Options is what the parser of one package knows of the others.
type Options struct {
	// Imported lists the toolsets of the packages the package imports, directly or not, as their own parsers
	// read them. A toolset of another package that is not listed is known only through the identity constants
	// of its generated file (model.IDConst), which may be missing or out of date.
	Imported []Toolset
}

// A Toolset is what the parser read of one toolset, for the parsers of the packages that import it.
type Toolset struct {
	// Pkg is the import path of the toolset's package and Type its type name.
	Pkg, Type string
	// Tools are the toolset's tools in declaration order.
	Tools []ToolRef
	// Failed lists the methods that Declare adds with AddTool but that are not tools because of a diagnostic
	// reported in the toolset's package. A pick of one is not reported again in the agent that picks it.
	Failed []string
}

// A ToolRef names one tool of a [Toolset].
type ToolRef struct {
	// Name is the tool's name and Method its Go method (or function) name.
	Name, Method string
}

// A Result is what Read returns.
type Result struct {
	// Package is the model, as Package returns it.
	Package *model.Package
	// Toolsets are the package's toolsets, for the parsers of the packages that import it.
	Toolsets []Toolset
	// Deferred lists the picks (Type.Method) that left an agent out of the model without a diagnostic of their
	// own, because the tool picked has an error in its own package. The package must not be generated until
	// that is fixed.
	Deferred []string
}

// Read is Package with what is known of other packages.
func Read(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info, r Reporter, opts Options) Result {
	if r == nil {
		r = Discard
	}
	imported := map[string]*Toolset{}
	for i := range opts.Imported {
		ts := &opts.Imported[i]
		if ts.Pkg != pkg.Path() {
			imported[ts.Pkg+"."+ts.Type] = ts
		}
	}
	p := &parser{
		imported:    imported,
		declared:    map[string][]string{},
		importClash: map[string]bool{},
		fset:        fset,
		files:       files,
		pkg:         pkg,
		info:        info,
		r:           r,
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
	p.checkImportedNames(opts.Imported)
	p.readAgents()
	p.checkIdentifiers()
	return Result{Package: p.out, Toolsets: p.ownToolsets(), Deferred: slices.Compact(p.deferred)}
}

// ownToolsets returns the package's toolsets as its importers' parsers see them.
func (p *parser) ownToolsets() []Toolset {
	var out []Toolset
	for _, set := range p.out.Toolsets {
		ts := Toolset{Pkg: p.pkg.Path(), Type: set.TypeName}
		tools := map[string]bool{}
		for _, t := range set.Tools {
			ts.Tools = append(ts.Tools, ToolRef{Name: t.Name, Method: t.Method})
			tools[t.Method] = true
		}
		for _, m := range p.declared[set.TypeName] {
			if !tools[m] {
				ts.Failed = append(ts.Failed, m)
			}
		}
		out = append(out, ts)
	}
	return out
}

// parser holds the state of reading one package.
type parser struct {
	// buf holds the diagnostics of the Declare being read, and badNames the places of its TSH008s, written once
	// its chains are all read, so that the names they suggest clash with none of its tools (chain.go).
	buf      *diagnosticBuffer
	badNames []badName

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

	// imported maps "path.Type" to the toolsets of imported packages that Options listed.
	imported map[string]*Toolset
	// declared maps each toolset type of the package to the methods its Declare names in AddTool chains,
	// whether or not they became tools.
	declared map[string][]string
	// site is the AddTool argument of the tool being read, where diagnostics about other packages' files go.
	site ast.Node
	// importClash holds the tool names already reported as clashing with an imported toolset's.
	importClash map[string]bool
	// deferred lists the agents left out because they pick a tool that has an error in another package.
	deferred []string
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
//
// A diagnostic belongs to the package whose declaration causes it: a position in a file of another package
// (a field of an imported type) is reported at the tool being read, and the message says where the field is.
func (p *parser) reportAt(pos token.Pos, code string, msg string) {
	if p.site != nil && !p.inFiles(pos) {
		if pos.IsValid() {
			at := p.fset.Position(pos)
			msg += fmt.Sprintf(" (declared at %s:%d)", filepath.Base(at.Filename), at.Line)
		}
		p.report(p.site, code, Error, msg)
		return
	}
	p.r.Report(Diagnostic{Pos: pos, End: pos, Code: code, Severity: Error, Message: msg})
}

// inFiles reports whether pos lies in one of the package's files.
func (p *parser) inFiles(pos token.Pos) bool {
	if !pos.IsValid() {
		return false
	}
	f := p.fset.File(pos)
	for _, file := range p.files {
		if p.fset.File(file.FileStart) == f {
			return true
		}
	}
	return false
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

// generatedName is a package-level identifier the generated file declares, with what it is for.
type generatedName struct {
	what string
	at   ast.Node
}

// checkIdentifiers reports (TSH030) what would make the generated file declare an identifier twice: a method
// added as a tool twice, two tools whose toolset and method names run together alike (Ticket.SearchX and
// TicketSearch.X both give TicketSearchXID), and a name the package declares itself that the generated file
// declares too (a type SupportSettings beside an agent Support, a method Tools of a toolset).
func (p *parser) checkIdentifiers() {
	names := map[string]generatedName{}
	add := func(ident, what string, at ast.Node) {
		if prev, ok := names[ident]; ok {
			p.report(at, "TSH030", Error, fmt.Sprintf(
				"the generated code would declare %s twice, for %s and for %s: rename one of them", ident, prev.what, what))
			return
		}
		names[ident] = generatedName{what: what, at: at}
	}
	tools := func(typeName string, ts []*model.Tool) {
		for _, t := range ts {
			pos := p.toolPos[t]
			var at ast.Node = pos.addTool
			if pos.addTool != nil && len(pos.addTool.Args) == 1 {
				at = pos.addTool.Args[0]
			}
			add(model.IDConst(typeName, t.Method), "the tool "+typeName+"."+t.Method, at)
		}
	}
	for _, set := range p.out.Toolsets {
		tools(set.TypeName, set.Tools)
	}
	for _, a := range p.out.Agents {
		at := p.typeSpec(a.TypeName)
		for _, suffix := range []string{"Settings", "SettingsKind", "SettingsVersion"} {
			add(a.TypeName+suffix, "the settings of agent "+a.TypeName, at)
		}
		tools(a.TypeName, a.Tools)
	}
	// Names the package declares itself.
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.declaredHere(names, d.Name)
				} else if t := recvName(d.Recv); t != "" {
					p.methodHere(t, d.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.declaredHere(names, s.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.declaredHere(names, n)
						}
					}
				}
			}
		}
	}
}

// declaredHere reports a package-level name of the package's own that the generated file declares too.
func (p *parser) declaredHere(names map[string]generatedName, id *ast.Ident) {
	if g, ok := names[id.Name]; ok {
		p.report(id, "TSH030", Error, fmt.Sprintf(
			"%s is declared here and by the generated code, for %s: rename this declaration", id.Name, g.what))
	}
}

// methodHere reports a method of the package's own that the generated file declares on a toolset or agent.
func (p *parser) methodHere(typeName string, id *ast.Ident) {
	var generated []string
	for _, set := range p.out.Toolsets {
		if set.TypeName == typeName {
			generated = append(generated, "Tools", "SourceName")
		}
	}
	for _, a := range p.out.Agents {
		if a.TypeName == typeName {
			generated = append(generated, "TypeshiftDeclaration", "TypeshiftTools")
			if a.Answer != nil {
				generated = append(generated, "TypeshiftAnswerType")
			}
		}
		if a.TypeName+"Settings" == typeName {
			generated = append(generated, "MarshalJSON", "UnmarshalJSON", "Document")
		}
	}
	if slices.Contains(generated, id.Name) {
		p.report(id, "TSH030", Error, fmt.Sprintf(
			"the generated code declares the method %s of %s: rename this method", id.Name, typeName))
	}
}

// typeSpec returns the name in the declaration of a package-level type, or nil.
func (p *parser) typeSpec(name string) ast.Node {
	if tn, ok := p.pkg.Scope().Lookup(name).(*types.TypeName); ok {
		if d, ok := p.typeSyntax[tn]; ok {
			return d.spec.Name
		}
	}
	return nil
}

// recvName returns T for a receiver of type T or *T (with or without type parameters), or "".
func recvName(fl *ast.FieldList) string {
	if len(fl.List) != 1 {
		return ""
	}
	if id := embeddedIdent(fl.List[0].Type); id != nil {
		return id.Name
	}
	return ""
}
