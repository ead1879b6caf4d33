package archtest

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/go/packages"
)

// ownedDirective marks a struct type whose fields only the file that declares it may assign: a part of a run in
// package agent, written by one stage (see agent/pipeline.go).
const ownedDirective = "//typeshift:owned"

// TestPartsAreWrittenByTheirOwners checks package agent: the fields of each part of a run are assigned only in the
// file that declares the part, so that pipeline.go's list of who writes what stays true.
func TestPartsAreWrittenByTheirOwners(t *testing.T) {
	is := is.New(t)
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  filepath.Join("..", ".."),
	}, "./agent")
	is.NoErr(err)
	is.Equal(len(pkgs), 1)
	p := pkgs[0]
	for _, e := range p.Errors {
		t.Fatalf("loading package agent: %v", e)
	}
	parts, violations := ownedWrites(p.Fset, p.Syntax, p.TypesInfo)
	is.True(len(parts) >= 8) // the run's parts were found: ask, session, rounds, usage, shown, lease, journal, ...
	for _, v := range violations {
		t.Error(v)
	}
}

// TestOwnedWritesFindsAViolation plants a write of a part's field from another file, and a near miss that is not
// one (a read, a write of a local, a write in the owner's file), and checks that the rule reports exactly the first.
func TestOwnedWritesFindsAViolation(t *testing.T) {
	is := is.New(t)
	fset := token.NewFileSet()
	dir := filepath.Join("testdata", "owned")
	entries, err := os.ReadDir(dir)
	is.NoErr(err)
	var files []*ast.File
	for _, e := range entries {
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		is.NoErr(err)
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	_, err = (&types.Config{Importer: importer.Default()}).Check("owned", fset, files, info)
	is.NoErr(err)
	parts, violations := ownedWrites(fset, files, info)
	is.Equal(parts, []string{"budget", "meter"})
	slices.Sort(violations)
	is.Equal(violations, []string{
		"intruder.go:11: assigns budget.left, a field of a part owned by budget.go",
		"intruder.go:12: assigns budget.retries, a field of a part owned by budget.go",
		"intruder.go:13: assigns meter.total, a field of a part owned by meter.go",
		"intruder.go:14: assigns budget.retries, a field of a part owned by budget.go",
	})
}

// ownedWrites returns the owned parts of the files and every assignment to one of their fields outside the file
// that declares it: an assignment (= and op=), an increment or decrement, and delete or clear of a map or slice
// field, through any selector, index or pointer on the way. Composite literals (a part built whole) and method
// calls (a mutex, an atomic) are not writes here.
func ownedWrites(fset *token.FileSet, files []*ast.File, info *types.Info) (parts, violations []string) {
	owner := map[*types.Var]*types.TypeName{} // field -> its part
	file := map[*types.TypeName]string{}      // part -> the file that declares it
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if !hasDirective(ts.Doc) && !(len(g.Specs) == 1 && hasDirective(g.Doc)) {
					continue
				}
				tn, _ := info.Defs[ts.Name].(*types.TypeName)
				st, ok := tn.Type().Underlying().(*types.Struct)
				if tn == nil || !ok {
					continue
				}
				file[tn] = filepath.Base(fset.Position(ts.Pos()).Filename)
				parts = append(parts, tn.Name())
				for i := range st.NumFields() {
					owner[st.Field(i)] = tn
				}
			}
		}
	}
	slices.Sort(parts)

	check := func(at token.Pos, e ast.Expr) {
		here := filepath.Base(fset.Position(at).Filename)
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			case *ast.SelectorExpr:
				if sel := info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
					if tn := owner[sel.Obj().(*types.Var)]; tn != nil {
						if file[tn] != here {
							violations = append(violations, fmt.Sprintf("%s:%d: assigns %s.%s, a field of a part owned by %s",
								here, fset.Position(at).Line, tn.Name(), x.Sel.Name, file[tn]))
						}
						return
					}
				}
				e = x.X
				continue
			}
			return
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE {
					for _, l := range n.Lhs {
						check(n.Pos(), l)
					}
				}
			case *ast.IncDecStmt:
				check(n.Pos(), n.X)
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) > 0 {
					if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "delete" || b.Name() == "clear") {
						check(n.Pos(), n.Args[0])
					}
				}
			}
			return true
		})
	}
	return parts, violations
}

// hasDirective reports whether the comment group holds the owned directive on a line of its own.
func hasDirective(g *ast.CommentGroup) bool {
	if g == nil {
		return false
	}
	for _, c := range g.List {
		if strings.TrimSpace(c.Text) == ownedDirective {
			return true
		}
	}
	return false
}
