package archtest

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/packages"
)

// Surface is the exported names of a package, as its users see them.
type Surface struct {
	// Names are the package-level names, the methods of its named types and the fields of its struct types that
	// other packages may use, as Name, Type.Method and Type.Field, sorted.
	Names []string
	// Undocumented are the exported package-level names and methods that have no doc comment, sorted. Methods that
	// satisfy error or fmt.Stringer (Error, Unwrap, String) need none.
	Undocumented []string
}

// LoadSurface loads the package pattern in dir (test files left out) and returns its surface.
func LoadSurface(dir, pattern string) (*Surface, error) {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}, pattern)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s: %d packages, want one", pattern, len(pkgs))
	}
	p := pkgs[0]
	for _, e := range p.Errors {
		return nil, fmt.Errorf("loading %s: %v", pattern, e)
	}
	return surface(p), nil
}

func surface(p *packages.Package) *Surface {
	s := &Surface{}
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		s.Names = append(s.Names, name)
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for m := range n.Methods() {
			if m.Exported() {
				s.Names = append(s.Names, name+"."+m.Name())
			}
		}
		switch u := n.Underlying().(type) {
		case *types.Struct:
			for f := range u.Fields() {
				if f.Exported() && !f.Embedded() {
					s.Names = append(s.Names, name+"."+f.Name())
				}
			}
		case *types.Interface:
			for m := range u.ExplicitMethods() {
				if m.Exported() {
					s.Names = append(s.Names, name+"."+m.Name())
				}
			}
		}
	}
	slices.Sort(s.Names)
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Doc != nil {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverName(d.Recv.List[0].Type)
					if !ast.IsExported(recv) || name == "Error" || name == "Unwrap" || name == "String" {
						continue
					}
					name = recv + "." + name
				}
				s.Undocumented = append(s.Undocumented, name)
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					var names []*ast.Ident
					var doc *ast.CommentGroup
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names, doc = []*ast.Ident{sp.Name}, sp.Doc
					case *ast.ValueSpec:
						names, doc = sp.Names, sp.Doc
					}
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					if doc == nil && d.Lparen.IsValid() && d.Doc != nil {
						doc = d.Doc // a group's comment documents its members
					}
					for _, id := range names {
						if id.IsExported() && doc == nil {
							s.Undocumented = append(s.Undocumented, id.Name)
						}
					}
				}
			}
		}
	}
	slices.Sort(s.Undocumented)
	return s
}

// receiverName is the name of a method's receiver type.
func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
