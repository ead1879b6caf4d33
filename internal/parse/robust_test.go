package parse

import (
	"go/ast"
	"go/importer"
	goparser "go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestBrokenCode runs the parser on declarations that do not type-check, as the analyzer may see them while
// the user types: it must report or skip, never panic.
func TestBrokenCode(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, body := range []string{
		`t.AddTool()`,
		`t.AddTool(t.Search, t.Search)`,
		`t.AddTool(t.Search).WithName()`,
		`t.AddTool(t.Search).WithSettings()`,
		`t.AddTool(t.Search).WithSettings(undefined{})`,
		`t.AddTool(t.Missing)`,
		`t.AddTool(t.Search).NoSuchCall()`,
		`t.AddTool(t.Search).WithDescription(1)`,
	} {
		src := `package p

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

var names []string

type T struct{ toolset.Toolset }

func (t *T) Declare() {
	` + body + `
}

type In struct {
	Q string ` + "`json:\"q\"`" + `
}

// Search searches.
func (t *T) Search(ctx context.Context, in In) (string, error) { return in.Q, nil }
`
		f, err := goparser.ParseFile(fset, "p.go", src, goparser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
			Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
			Implicits: map[ast.Node]types.Object{},
		}
		typeErrors := 0
		conf := types.Config{Importer: imp, Error: func(error) { typeErrors++ }}
		pkg, _ := conf.Check("p", fset, []*ast.File{f}, info)
		if typeErrors == 0 {
			t.Fatalf("%s: expected the snippet not to type-check", body)
		}
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("%s: parser panicked: %v", body, v)
				}
			}()
			Package(fset, []*ast.File{f}, pkg, info, Discard)
		}()
	}
}
