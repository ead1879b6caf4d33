package analysis_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"testing"

	goanalysis "golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/typeshift-go/typeshift/analysis"
	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// load loads packages of the module in dir with everything the analysis checker needs, offline.
func load(t testing.TB, dir string, patterns ...string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  dir,
		Env:  append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS="),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	return pkgs
}

// parsed is what the generator makes of one package.
type parsed struct {
	model *model.Package
	diags []parse.Diagnostic
}

// parseFiles parses a package as the generator does: without its generated file.
func parseFiles(fset *token.FileSet, syntax []*ast.File, pkg *types.Package, info *types.Info) parsed {
	var files []*ast.File
	for _, f := range syntax {
		if filepath.Base(fset.File(f.FileStart).Name()) != analysis.GeneratedFile {
			files = append(files, f)
		}
	}
	var out parsed
	out.model = parse.Package(fset, files, pkg, info, parse.ReporterFunc(func(d parse.Diagnostic) {
		out.diags = append(out.diags, d)
	}))
	return out
}

// parsePass parses the package of a finished analysis pass.
func parsePass(pass *goanalysis.Pass) parsed {
	return parseFiles(pass.Fset, pass.Files, pass.Pkg, pass.TypesInfo)
}

// generate returns the generated file of a package that declares toolsets.
func generate(t testing.TB, p *packages.Package) []byte {
	t.Helper()
	src, err := emit.File(parseFiles(p.Fset, p.Syntax, p.Types, p.TypesInfo).model)
	if err != nil {
		t.Fatalf("%s: %v", p.PkgPath, err)
	}
	return src
}
